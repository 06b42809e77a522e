//! Lists the tools of another stdio MCP server, as a client would.

use std::process::Stdio;
use std::time::Duration;

use anyhow::{Context, bail};
use rmcp::ServiceExt;
use rmcp::transport::TokioChildProcess;
use serde_json::Value;

/// How long a server may take to start and list its tools.
const LIST_TIMEOUT: Duration = Duration::from_secs(60);

/// Starts `command`, performs the MCP handshake, lists every tool and returns (name, inputSchema).
pub fn list_tool_schemas(command: &[String]) -> anyhow::Result<Vec<(String, Value)>> {
    let Some((program, args)) = command.split_first() else {
        bail!(
            "give the server command after --, e.g. `schema check --server -- npx some-mcp-server`"
        );
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(async {
        let mut cmd = tokio::process::Command::new(program);
        cmd.args(args);
        let (transport, _stderr) = TokioChildProcess::builder(cmd)
            .stderr(Stdio::inherit())
            .spawn()
            .with_context(|| format!("cannot start {program}"))?;
        let listing = async {
            let client = ().serve(transport).await.context("the MCP handshake failed")?;
            let tools = client.list_all_tools().await.context("tools/list failed")?;
            let _ = client.cancel().await;
            anyhow::Ok(tools)
        };
        let tools = tokio::time::timeout(LIST_TIMEOUT, listing)
            .await
            .with_context(|| {
                format!("{program} did not list its tools within {LIST_TIMEOUT:?}")
            })??;
        Ok(tools
            .into_iter()
            .map(|t| (t.name.to_string(), Value::Object((*t.input_schema).clone())))
            .collect())
    })
}
