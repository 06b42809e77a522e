// The AI SDK harness of `cargo xtask e2e` (see ai_sdk.rs): the AI SDK's own MCP client connects
// over stdio to the command in AI_SDK_MCP_COMMAND (a JSON array: `fs-mcp-rs proxy -- python
// pydantic_server.py`), and generateText runs with the Google provider pointed at the stand-in
// model (AI_SDK_MODEL_URL). The model's scripted calls go through the AI SDK's tool execution to
// the proxy; the harness reads what came back from the stand-in's request log.
//
// Prints the final text on stdout (the stand-in's closing line), and one JSON line per step on
// stderr for the run's log.
import { generateText, isStepCount } from 'ai';
import { createGoogle } from '@ai-sdk/google';
import { createMCPClient } from '@ai-sdk/mcp';
import { Experimental_StdioMCPTransport } from '@ai-sdk/mcp/mcp-stdio';

const [command, ...args] = JSON.parse(process.env.AI_SDK_MCP_COMMAND);
const client = await createMCPClient({
  transport: new Experimental_StdioMCPTransport({ command, args, stderr: 'inherit' }),
  name: 'ai-sdk-e2e',
});
try {
  const tools = await client.tools();
  const google = createGoogle({
    baseURL: `${process.env.AI_SDK_MODEL_URL}/v1beta`,
    apiKey: 'e2e-stand-in',
  });
  const result = await generateText({
    model: google('gemini-2.5-pro'),
    tools,
    stopWhen: isStepCount(5),
    prompt: 'Run the fs-mcp-rs end-to-end script.',
  });
  for (const step of result.steps) {
    console.error(JSON.stringify({ toolCalls: step.toolCalls, toolResults: step.toolResults }));
  }
  console.log(result.text);
} finally {
  await client.close();
}
