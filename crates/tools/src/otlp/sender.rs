//! The sender's thread: each batch of spans, and each metrics export, encoded
//! (protobuf or OTLP/JSON) and POSTed with the export timeout; what was sent and what
//! failed counted for the report.

use super::exporter::{Counters, Job, Settings};
use super::post::{Endpoint, post};
use super::proto::{ExportTraceServiceRequest, Resource, ResourceSpans, ScopeSpans};
use prost::Message as _;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Receiver;
use std::time::Instant;

/// The sender's thread: each job posted with the timeout; once the end began, what
/// is left shares one more timeout.
pub(super) fn send_all(
    rx: Receiver<Job>,
    settings: &Settings,
    counters: &Counters,
    closing: &AtomicBool,
) {
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            counters.failed("otlp", format!("no runtime: {e}"));
            for job in rx {
                fail(counters, &job, None);
            }
            return;
        }
    };
    let tls = match mcp_raw_net::client::tls::Tls::new(mcp_raw_net::client::tls::TlsOptions {
        cacert: settings.cacert.clone(),
        ..Default::default()
    }) {
        Ok(tls) => tls,
        Err(e) => {
            counters.failed("otlp", format!("OTEL_EXPORTER_OTLP_CERTIFICATE: {e:#}"));
            for job in rx {
                fail(counters, &job, None);
            }
            return;
        }
    };
    let mut deadline: Option<Instant> = None;
    for job in rx {
        let posting = settings.posting(matches!(job, Job::Metrics(_)));
        if closing.load(Ordering::SeqCst) && deadline.is_none() {
            deadline = Some(Instant::now() + posting.timeout);
        }
        let budget = match deadline {
            Some(d) => d.saturating_duration_since(Instant::now()),
            None => posting.timeout,
        };
        let (to, body, content_type) = encode(&job, settings, posting.json);
        let Some(to) = to else { continue };
        if budget.is_zero() {
            fail(
                counters,
                &job,
                Some(format!(
                    "{}: not sent: the exit's time for the collector ran out",
                    to.url
                )),
            );
            continue;
        }
        let sent = rt.block_on(async {
            match tokio::time::timeout(budget, post(to, content_type, posting.headers, &body, &tls))
                .await
            {
                Ok(r) => r.map_err(|e| format!("{e:#}")),
                Err(_) => Err(format!("no answer within {} ms", budget.as_millis())),
            }
        });
        match sent {
            Ok(_) => match &job {
                Job::Spans(s) => {
                    counters
                        .spans_sent
                        .fetch_add(s.len() as u64, Ordering::Relaxed);
                }
                Job::Metrics(_) => {
                    counters.metrics_sent.fetch_add(1, Ordering::Relaxed);
                }
            },
            Err(e) => fail(counters, &job, Some(format!("{}: {e}", to.url))),
        }
    }
}

fn fail(counters: &Counters, job: &Job, why: Option<String>) {
    match job {
        Job::Spans(s) => {
            counters
                .spans_failed
                .fetch_add(s.len() as u64, Ordering::Relaxed);
        }
        Job::Metrics(_) => {
            counters.metrics_failed.fetch_add(1, Ordering::Relaxed);
        }
    }
    if let Some(why) = why {
        counters.failed("export failed", why);
    }
}

/// The job's endpoint, body and content type.
fn encode<'a>(
    job: &Job,
    settings: &'a Settings,
    json: bool,
) -> (Option<&'a Endpoint>, Vec<u8>, &'static str) {
    let (to, body) = match job {
        Job::Spans(spans) => {
            let r = ExportTraceServiceRequest {
                resource_spans: vec![ResourceSpans {
                    resource: Some(Resource {
                        attributes: settings.resource.clone(),
                    }),
                    scope_spans: vec![ScopeSpans {
                        scope: Some(super::scope()),
                        spans: spans.clone(),
                    }],
                }],
            };
            let body = if json {
                super::json::traces(&r).to_string().into_bytes()
            } else {
                r.encode_to_vec()
            };
            (settings.traces.as_ref(), body)
        }
        Job::Metrics(r) => {
            let body = if json {
                super::json::metrics(r).to_string().into_bytes()
            } else {
                r.encode_to_vec()
            };
            (settings.metrics.as_ref(), body)
        }
    };
    let content_type = if json {
        "application/json"
    } else {
        "application/x-protobuf"
    };
    (to, body, content_type)
}
