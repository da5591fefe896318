// contrib's request bodies sent through the official TypeScript SDKs
// (@anthropic-ai/sdk, openai) to a local server on 127.0.0.1 that answers
// like the provider; what arrives must equal what contrib produced.
//
// Usage: node send.mjs WIRE=FILE.jsonl...

import { createServer } from "node:http";
import { readFileSync } from "node:fs";
import { isDeepStrictEqual } from "node:util";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";

const PATHS = {
  anthropic: "/v1/messages",
  "openai-responses": "/v1/responses",
  "openai-chat": "/v1/chat/completions",
};

function answer(path, body) {
  const model = body.model ?? "unknown";
  if (path.endsWith("/messages")) {
    return {
      id: "msg_local", type: "message", role: "assistant", model,
      content: [{ type: "text", text: "ok" }],
      stop_reason: "end_turn", stop_sequence: null,
      usage: { input_tokens: 1, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    };
  }
  if (path.endsWith("/responses")) {
    return {
      id: "resp_local", object: "response", created_at: 0, model, status: "completed",
      output: [{
        type: "message", id: "msg_local", role: "assistant", status: "completed",
        content: [{ type: "output_text", text: "ok", annotations: [] }],
      }],
      parallel_tool_calls: true, tool_choice: "auto", tools: [],
      usage: {
        input_tokens: 1, input_tokens_details: { cached_tokens: 0 },
        output_tokens: 1, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 2,
      },
    };
  }
  return {
    id: "chatcmpl_local", object: "chat.completion", created: 0, model,
    choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  };
}

const arrived = [];
const server = createServer((request, response) => {
  const chunks = [];
  request.on("data", (chunk) => chunks.push(chunk));
  request.on("end", () => {
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}");
    const path = request.url.split("?")[0];
    arrived.push({ path, body });
    const data = JSON.stringify(answer(path, body));
    response.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(data) });
    response.end(data);
  });
});

await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const { port } = server.address();
const base = `http://127.0.0.1:${port}`;
const anthropic = new Anthropic({ baseURL: base, apiKey: "local-test-key", maxRetries: 0 });
const openai = new OpenAI({ baseURL: `${base}/v1`, apiKey: "local-test-key", maxRetries: 0 });

let failed = false;
try {
  for (const argument of process.argv.slice(2)) {
    const [wire, file] = argument.split("=");
    let count = 0;
    for (const line of readFileSync(file, "utf8").split("\n")) {
      if (!line.trim()) continue;
      const sent = JSON.parse(line);
      const where = `${file}, turn ${sent.turn} request ${sent.request}`;
      const body = sent.body;
      let reply;
      if (wire === "anthropic") reply = await anthropic.messages.create(body);
      else if (wire === "openai-responses") reply = await openai.responses.create(body);
      else if (wire === "openai-chat") reply = await openai.chat.completions.create(body);
      else throw new Error(`unknown wire ${wire}`);
      if (!reply || !reply.id) throw new Error(`${where}: the client did not parse the answer`);
      const last = arrived.at(-1);
      if (last.path !== PATHS[wire]) throw new Error(`${where}: sent to ${last.path}, not ${PATHS[wire]}`);
      if (!isDeepStrictEqual(last.body, body)) {
        throw new Error(`${where}: what arrived differs from what contrib produced:\nsent:    ${JSON.stringify(body).slice(0, 2000)}\narrived: ${JSON.stringify(last.body).slice(0, 2000)}`);
      }
      count += 1;
    }
    if (count === 0) throw new Error(`${file}: no request bodies`);
    console.log(`typescript sdk: ${wire}: ${count} bodies sent and received unchanged`);
  }
} catch (error) {
  console.error(error.message ?? error);
  failed = true;
} finally {
  server.close();
}
process.exit(failed ? 1 : 0);
