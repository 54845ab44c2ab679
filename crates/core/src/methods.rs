//! The method table both eras share. Each era adds its own methods around it (legacy:
//! `initialize`, `ping`, `logging/setLevel`, `resources/subscribe`; modern:
//! `server/discover`, `subscriptions/listen`) and dresses the results its way.

use super::context::{Env, Outcome, Pending, Reply};
use super::{Server, completion, prompts, resources, tools};
use crate::jsonrpc::{Params, Response};

/// Serves a method both eras have; `None` when the method is not one of them (or
/// this server does not offer that feature).
pub fn shared(server: &Server, method: &str, sent: Option<&Params>, env: Env) -> Option<Outcome> {
    // `tools/call` reads `params` where it lies; the others want a `Value`.
    let params = || sent.map(|p| &**p);
    let res = &server.resources;
    let has_resources = !res.is_empty();
    let has_prompts = !server.prompts.is_empty();
    Some(match method {
        "tools/list" => Outcome::Now(Ok(tools::list(&server.tools).into())),
        "tools/call" => tools::call(&server.tools, sent, env),
        "resources/list" if has_resources => Outcome::value(Ok(resources::list(res))),
        "resources/templates/list" if has_resources => {
            Outcome::value(Ok(resources::templates(res)))
        }
        "resources/read" if has_resources => {
            Outcome::value(resources::read(res, params(), env.modern))
        }
        "prompts/list" if has_prompts => Outcome::value(Ok(prompts::list(&server.prompts))),
        "prompts/get" if has_prompts => prompts::get(&server.prompts, params(), env),
        "completion/complete" if has_prompts || has_resources => {
            Outcome::value(completion::complete(&server.prompts, res, params()))
        }
        _ => return None,
    })
}

/// The results that carry caching hints in the modern era (`server/utilities/caching`).
pub fn cacheable(method: &str) -> bool {
    matches!(
        method,
        "server/discover"
            | "tools/list"
            | "prompts/list"
            | "resources/list"
            | "resources/templates/list"
            | "resources/read"
    )
}

/// The methods whose answer is a stream of messages ending with the response:
/// `tools/call`, where a tool that takes time reports progress (or asks the client)
/// before its result. The transport frames such an answer as a stream even when the
/// result is ready at once ([`Reply::Streamed`]).
pub fn streams(method: &str) -> bool {
    method == "tools/call"
}

/// The reply to `method` with this response ready now: [`Reply::Streamed`] for a
/// method whose answer is a stream ([`streams`]), else [`Reply::Now`].
pub fn now(method: &str, response: Response) -> Reply {
    if streams(method) {
        Reply::Streamed(response)
    } else {
        Reply::Now(response)
    }
}

/// The reply to `method` that answers later, marked when its answer is a stream.
pub fn later(method: &str, mut pending: Pending) -> Reply {
    pending.streamed = streams(method);
    Reply::Later(pending)
}
