// Evaluates GitHub Actions `${{ }}` templates with GitHub's own expression engine.
// Reads {"templates": [str], "contexts": {name: json}} on stdin; prints the results as a JSON
// list, each template's expressions evaluated and coerced to strings as the runner does.
import { Evaluator, Lexer, Parser, data } from "@actions/expressions";
import { readFileSync } from "node:fs";

const request = JSON.parse(readFileSync(0, "utf8"));
const contexts = JSON.parse(JSON.stringify(request.contexts), data.reviver);
const names = Object.keys(request.contexts);

function evaluate(source) {
  const lexed = new Lexer(source).lex();
  const tree = new Parser(lexed.tokens, names, []).parse();
  return new Evaluator(tree, contexts).evaluate();
}

function render(template) {
  let out = "";
  let rest = template;
  for (;;) {
    const start = rest.indexOf("${{");
    if (start < 0) return out + rest;
    const end = rest.indexOf("}}", start);
    if (end < 0) throw new Error(`unclosed expression in ${template}`);
    out += rest.slice(0, start) + evaluate(rest.slice(start + 3, end)).coerceString();
    rest = rest.slice(end + 2);
  }
}

process.stdout.write(JSON.stringify(request.templates.map(render)));
