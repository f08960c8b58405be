// Evaluates GitHub Actions `${{ }}` templates with GitHub's own expression engine.
// Reads {"templates": [str], "contexts": {name: json}} on stdin; prints the results as a JSON
// list, each template's expressions evaluated and coerced to strings as the runner does.
// {"batch": [request, ...]} evaluates many requests in one process: a list of such lists.
import { Evaluator, Lexer, Parser, data } from "@actions/expressions";
import { readFileSync } from "node:fs";

function evaluate(source, contexts, names) {
  const lexed = new Lexer(source).lex();
  const tree = new Parser(lexed.tokens, names, []).parse();
  return new Evaluator(tree, contexts).evaluate();
}

function render(template, contexts, names) {
  let out = "";
  let rest = template;
  for (;;) {
    const start = rest.indexOf("${{");
    if (start < 0) return out + rest;
    const end = rest.indexOf("}}", start);
    if (end < 0) throw new Error(`unclosed expression in ${template}`);
    out += rest.slice(0, start) + evaluate(rest.slice(start + 3, end), contexts, names).coerceString();
    rest = rest.slice(end + 2);
  }
}

function answer(request) {
  const contexts = JSON.parse(JSON.stringify(request.contexts), data.reviver);
  const names = Object.keys(request.contexts);
  return request.templates.map((template) => render(template, contexts, names));
}

const input = JSON.parse(readFileSync(0, "utf8"));
const output = input.batch ? input.batch.map(answer) : answer(input);
process.stdout.write(JSON.stringify(output));
