// Copy the browser builds of the phone page's libraries from node_modules into vendor/,
// with a VERSIONS file naming the exact versions. Run after `npm ci` (see README.md).
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";

const files = [
  ["mqtt", "node_modules/mqtt/dist/mqtt.min.js", "vendor/mqtt.min.js"],
  ["js-sha256", "node_modules/js-sha256/src/sha256.js", "vendor/sha256.js"],
  ["nosleep.js", "node_modules/nosleep.js/dist/NoSleep.min.js", "vendor/NoSleep.min.js"],
];
mkdirSync("vendor", { recursive: true });
const lines = [];
for (const [pkg, from, to] of files) {
  const version = JSON.parse(readFileSync(`node_modules/${pkg}/package.json`, "utf8")).version;
  copyFileSync(from, to);
  lines.push(`${to.replace("vendor/", "")} ${pkg}@${version} (${from.replace("node_modules/", "")})`);
}
writeFileSync("vendor/VERSIONS", lines.join("\n") + "\n");
console.log(lines.join("\n"));
