// Mermaid's own parser over the charts on stdin (a JSON array of chart texts): one answer each,
// {"type": the diagram type} or {"error": why}, as a JSON array on stdout. Mermaid expects a
// DOM (its sanitiser is DOMPurify), so jsdom gives it one before it loads.
import { JSDOM } from "jsdom";

const dom = new JSDOM("<!doctype html><html><body></body></html>");
globalThis.window = dom.window;
globalThis.document = dom.window.document;
const { default: mermaid } = await import("mermaid");

let input = "";
for await (const chunk of process.stdin) input += chunk;
const answers = [];
for (const chart of JSON.parse(input)) {
  try {
    const parsed = await mermaid.parse(chart);
    answers.push({ type: parsed.diagramType });
  } catch (error) {
    answers.push({ error: String(error?.message ?? error) });
  }
}
process.stdout.write(JSON.stringify(answers));
