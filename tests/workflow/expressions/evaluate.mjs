// Evaluates GitHub Actions `${{ }}` templates with GitHub's own expression engine.
// Reads {"templates": [str], "contexts": {name: json}} on stdin; prints the results as a JSON
// list, each template's expressions evaluated and coerced to strings as the runner does.
// {"batch": [request, ...]} evaluates many requests in one process: a list of such lists.
// A job's `if:` may call the runner's status functions; a request's "status" says what they
// answer ({"cancelled": false, "success": true, "failure": false} unless given).
import { Evaluator, Lexer, Parser, data } from "@actions/expressions";
import { readFileSync } from "node:fs";

const STATUS = ["always", "cancelled", "failure", "success"];

function statusFunctions(status) {
  const answers = { always: true, cancelled: false, success: true, failure: false, ...status };
  const entries = STATUS.map((name) => [
    name,
    { name, minArgs: 0, maxArgs: 0, call: () => new data.BooleanData(Boolean(answers[name])) },
  ]);
  return new Map(entries);
}

function evaluate(source, contexts, names, functions) {
  const lexed = new Lexer(source).lex();
  const tree = new Parser(lexed.tokens, names, [...functions.values()]).parse();
  return new Evaluator(tree, contexts, functions).evaluate();
}

function render(template, contexts, names, functions) {
  let out = "";
  let rest = template;
  for (;;) {
    const start = rest.indexOf("${{");
    if (start < 0) return out + rest;
    const end = rest.indexOf("}}", start);
    if (end < 0) throw new Error(`unclosed expression in ${template}`);
    const value = evaluate(rest.slice(start + 3, end), contexts, names, functions);
    out += rest.slice(0, start) + value.coerceString();
    rest = rest.slice(end + 2);
  }
}

function answer(request) {
  const contexts = JSON.parse(JSON.stringify(request.contexts), data.reviver);
  const names = Object.keys(request.contexts);
  const functions = statusFunctions(request.status || {});
  return request.templates.map((template) => render(template, contexts, names, functions));
}

const input = JSON.parse(readFileSync(0, "utf8"));
const output = input.batch ? input.batch.map(answer) : answer(input);
process.stdout.write(JSON.stringify(output));
