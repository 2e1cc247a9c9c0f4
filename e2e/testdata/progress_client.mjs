// A client on the TypeScript MCP SDK (the one the MCP Inspector is built
// on): it starts `toolfold serve -c <cfg>` over stdio, calls run_script with
// a progress callback, and prints one JSON line: the progress notifications
// in the order they came, each with whether the result had arrived yet,
// and the result's text.
//
// usage: node progress_client.mjs <sdk dir> <toolfold> <proxy.yaml> <language> <code>
import { pathToFileURL } from "node:url";

const [sdk, toolfold, cfg, language, code] = process.argv.slice(2);
const { Client } = await import(pathToFileURL(`${sdk}/dist/esm/client/index.js`));
const { StdioClientTransport } = await import(pathToFileURL(`${sdk}/dist/esm/client/stdio.js`));

const client = new Client({ name: "toolfold-e2e-ts", version: "0" });
await client.connect(new StdioClientTransport({ command: toolfold, args: ["serve", "-c", cfg], stderr: "inherit" }));
let done = false;
const progress = [];
const result = await client.callTool({ name: "run_script", arguments: { language, code } }, undefined, {
  onprogress: (p) => progress.push({ message: p.message ?? "", progress: p.progress, afterResult: done }),
  timeout: 120000,
});
done = true;
const text = (result.content ?? []).map((c) => c.text ?? "").join("\n");
console.log(JSON.stringify({ progress, text, isError: !!result.isError }));
await client.close();
