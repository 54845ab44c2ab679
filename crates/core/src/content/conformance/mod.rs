//! The conformance fixture (`mcp-raw serve --fixture conformance`): the tools,
//! resources and prompts the official MCP conformance suite expects
//! (`@modelcontextprotocol/conformance`, see `../shared/conformance/FIXTURE-SPEC.md`).
//! The default server keeps the three demo tools; this set exercises everything else:
//! every content type, progress, logging, server-to-client requests in both eras,
//! change notifications, tools that answer with a task (the tasks extension).

mod ask;
mod input_required;
mod payloads;
mod prompts;
mod resources;
mod tasks;
mod tools;

use crate::{Eras, Features, Server};
use std::sync::Arc;

/// A server with the whole conformance fixture.
pub fn server(eras: Eras) -> Arc<Server> {
    server_with(eras, crate::tasks::TaskLimits::default())
}

/// The same, with these bounds on its task store.
pub fn server_with(eras: Eras, task_limits: crate::tasks::TaskLimits) -> Arc<Server> {
    let hub = Arc::<crate::subscriptions::Hub>::default();
    let tasks = Arc::new(crate::tasks::Store::with_limits(task_limits, hub.clone()));
    server_on(eras, hub, tasks)
}

/// The conformance server on a given hub and task store: the ones replicas share
/// through `serve --store` (`mcp_raw_net::store`).
pub fn server_on(
    eras: Eras,
    hub: Arc<crate::subscriptions::Hub>,
    tasks: Arc<crate::tasks::Store>,
) -> Arc<Server> {
    let mut all = tools::tools();
    all.extend(input_required::tools());
    all.extend(tasks::tools());
    Server::full_on(
        crate::tools::ToolSet::new(all),
        resources::resources(),
        prompts::prompts(),
        eras,
        Features {
            logging: true,
            list_changed: true,
            tasks: true,
            task_limits: crate::tasks::TaskLimits::default(),
        },
        hub,
        tasks,
    )
}
