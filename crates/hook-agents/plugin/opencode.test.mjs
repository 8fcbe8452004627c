// Tests of the OpenCode / Kilo Code plugin (`node --test crates/hook-agents/plugin/`), against a stand-in bridge
// (a shell script whose answer each test picks) and, where `HOOK_BIN` names the `hook` binary, the real bridge.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { execFileSync } from "node:child_process";

const SOURCE = readFileSync(new URL("./opencode.js", import.meta.url), "utf8");
const CONFIG_LINE = /^const CONFIG = .*$/m;

// The plugin as `hook install` would write it with `config`, loaded: its handlers for the project `directory`.
async function plugin(config, directory) {
  assert.match(SOURCE, CONFIG_LINE, "the plugin has the line install replaces");
  const dir = mkdtempSync(join(tmpdir(), "hook-plugin-"));
  const file = join(dir, "hook-engine.mjs");
  writeFileSync(file, SOURCE.replace(CONFIG_LINE, `const CONFIG = ${JSON.stringify(config)};`));
  const module = await import(pathToFileURL(file).href);
  const functions = Object.values(module).filter((v) => typeof v === "function");
  assert.equal(functions.length, 1, "OpenCode calls every exported function as a plugin: only one is exported");
  return functions[0]({ directory: directory ?? dir });
}

// A stand-in bridge: records its stdin in `<dir>/input.json`, then prints `stdout`, `stderr` and exits `code`.
function fakeBridge({ stdout = "", stderr = "", code = 0, before = "" }) {
  const dir = mkdtempSync(join(tmpdir(), "hook-bridge-"));
  const script = join(dir, "bridge.sh");
  const q = (text) => `'${text.replaceAll("'", "'\\''")}'`;
  writeFileSync(
    script,
    `cat > ${q(join(dir, "input.json"))}\n${before}\nprintf '%s' ${q(stdout)}\nprintf '%s' ${q(stderr)} >&2\nexit ${code}\n`,
  );
  return { command: `exec sh ${q(script)}`, input: () => JSON.parse(readFileSync(join(dir, "input.json"), "utf8")) };
}

const config = (command, timeoutMs = 5000) => ({ command, program: "hook", agent: "opencode", timeoutMs });
const deny = (reason) =>
  JSON.stringify({ hookSpecificOutput: { hookEventName: "tool.execute.before", permissionDecision: "deny", permissionDecisionReason: reason } });

test("a deny throws with the reason, and the bridge reads the call in Claude Code's shape", async () => {
  const bridge = fakeBridge({ stdout: deny("no rm here") });
  const hooks = await plugin(config(bridge.command), "/ws");
  const output = { args: { command: "rm -rf build" } };
  await assert.rejects(hooks["tool.execute.before"]({ tool: "bash", sessionID: "s1", callID: "c1" }, output), {
    message: "no rm here",
  });
  assert.deepEqual(bridge.input(), {
    cwd: "/ws",
    hook_event_name: "tool.execute.before",
    session_id: "s1",
    tool_name: "bash",
    tool_input: { command: "rm -rf build" },
  });
});

test("a pass leaves the call as it was", async () => {
  const hooks = await plugin(config(fakeBridge({}).command));
  const output = { args: { command: "ls" } };
  await hooks["tool.execute.before"]({ tool: "bash", sessionID: "s1" }, output);
  assert.deepEqual(output.args, { command: "ls" });
});

test("exit 2 blocks with stderr as the reason", async () => {
  const hooks = await plugin(config(fakeBridge({ stderr: "blocked: tests first", code: 2 }).command));
  await assert.rejects(hooks["tool.execute.before"]({ tool: "bash" }, { args: {} }), { message: "blocked: tests first" });
});

test("an ask becomes a deny that says approval is required", async () => {
  const stdout = JSON.stringify({ hookSpecificOutput: { permissionDecision: "ask", permissionDecisionReason: "prod" } });
  const hooks = await plugin(config(fakeBridge({ stdout }).command));
  await assert.rejects(hooks["tool.execute.before"]({ tool: "bash" }, { args: {} }), /approval is required.*prod/);
});

test("a rewrite replaces the arguments in place", async () => {
  const stdout = JSON.stringify({ hookSpecificOutput: { permissionDecision: "allow", updatedInput: { command: "ls -a" } } });
  const hooks = await plugin(config(fakeBridge({ stdout }).command));
  const output = { args: { command: "ls", description: "list" } };
  const args = output.args;
  await hooks["tool.execute.before"]({ tool: "bash" }, output);
  assert.equal(output.args, args, "OpenCode keeps its own reference to the arguments");
  assert.deepEqual(output.args, { command: "ls -a" });
});

test("post_tool context and a block's reason are appended to the tool's output", async () => {
  const stdout = JSON.stringify({ decision: "block", reason: "lint failed", hookSpecificOutput: { additionalContext: "see docs/lint.md" } });
  const bridge = fakeBridge({ stdout });
  const hooks = await plugin(config(bridge.command));
  const output = { title: "", output: "built", metadata: {} };
  await hooks["tool.execute.after"]({ tool: "bash", sessionID: "s1", args: { command: "make" } }, output);
  assert.equal(output.output, "built\n\nsee docs/lint.md\n\nlint failed");
  assert.equal(bridge.input().tool_response, "built");
  assert.deepEqual(bridge.input().tool_input, { command: "make" });
});

test("a notice on a call that goes ahead reaches the model beside the tool's output", async () => {
  const stdout = JSON.stringify({ systemMessage: "guard `g` is not trusted: run hook trust" });
  const hooks = await plugin(config(fakeBridge({ stdout }).command));
  await hooks["tool.execute.before"]({ tool: "bash", callID: "c7" }, { args: {} });
  const output = { output: "ran" };
  await hooks["tool.execute.after"]({ tool: "bash", callID: "c7", args: {} }, output);
  assert.equal(output.output, "ran\n\n[hook notice for the user] guard `g` is not trusted: run hook trust");
});

test("a bridge that cannot run (not on PATH) blocks the call", async () => {
  const hooks = await plugin(config("/nonexistent/hook bridge --protocol opencode"));
  await assert.rejects(hooks["tool.execute.before"]({ tool: "bash" }, { args: {} }), /Error: hook was not found on the PATH the agent gives its hooks \(exit 127\); the call is blocked, since the hook engine could not decide it\. Check with: hook validate; reinstall with: hook install --agent opencode \(it said: .*not found\)$/);
});

test("a bridge that dies blocks the call", async () => {
  const hooks = await plugin(config(fakeBridge({ before: "kill -9 $$" }).command));
  await assert.rejects(hooks["tool.execute.before"]({ tool: "bash" }, { args: {} }), /hook was killed by signal 9; the call is blocked/);
});

test("a bridge that hangs blocks the call once its time is up", async () => {
  const hooks = await plugin(config(fakeBridge({ before: "sleep 30" }).command, 300));
  const started = Date.now();
  await assert.rejects(hooks["tool.execute.before"]({ tool: "bash" }, { args: {} }), /hook did not answer within 300 ms; the call is blocked/);
  assert.ok(Date.now() - started < 10_000);
});

test("an answer that is not JSON blocks the call", async () => {
  const hooks = await plugin(config(fakeBridge({ stdout: "oops" }).command));
  await assert.rejects(hooks["tool.execute.before"]({ tool: "bash" }, { args: {} }), /not JSON: oops/);
});

test("a failed bridge after the tool ran is told beside its output, not swallowed", async () => {
  const hooks = await plugin(config("/nonexistent/hook"));
  const output = { output: "done" };
  await hooks["tool.execute.after"]({ tool: "bash", args: {} }, output);
  assert.match(output.output, /^done\n\n\[hook notice for the user\] hook was not found on the PATH .* \(exit 127\); the call is blocked/);
});

test("the user's message: context is appended, a deny fails the prompt", async () => {
  const context = JSON.stringify({ hookSpecificOutput: { additionalContext: "branch: main" } });
  const bridge = fakeBridge({ stdout: context });
  let hooks = await plugin(config(bridge.command));
  const output = { message: {}, parts: [{ type: "text", text: "fix the build" }] };
  await hooks["chat.message"]({ sessionID: "s1" }, output);
  assert.equal(output.parts[0].text, "fix the build\n\nbranch: main");
  assert.equal(bridge.input().prompt, "fix the build");
  hooks = await plugin(config(fakeBridge({ stdout: JSON.stringify({ decision: "block", reason: "no prompts today" }) }).command));
  await assert.rejects(hooks["chat.message"]({ sessionID: "s1" }, { parts: [] }), { message: "no prompts today" });
});

test("session events reach the bridge as observers; other bus events do not", async () => {
  const bridge = fakeBridge({});
  const hooks = await plugin(config(bridge.command));
  await hooks.event({ event: { type: "session.created", properties: { info: { id: "s9" } } } });
  assert.equal(bridge.input().hook_event_name, "session.created");
  assert.equal(bridge.input().session_id, "s9");
  const other = fakeBridge({});
  await (await plugin(config(other.command))).event({ event: { type: "message.updated", properties: {} } });
  assert.throws(() => other.input());
});

// The real bridge, where the Rust suite names it: a workspace whose trusted native gate denies `rm`, with a home of
// its own (trust store, receipts).
const HOOK_BIN = process.env.HOOK_BIN;
test("the real bridge denies through the plugin, with the hook's reason", { skip: !HOOK_BIN && "HOOK_BIN is not set" }, async () => {
  const ws = mkdtempSync(join(tmpdir(), "hook-ws-"));
  const home = mkdtempSync(join(tmpdir(), "hook-home-"));
  mkdirSync(join(ws, ".hooks"));
  mkdirSync(join(ws, ".opencode"));
  writeFileSync(
    join(ws, ".hooks", "hooks.yaml"),
    "- id: no-rm\n  on: pre_tool\n  tools: [shell]\n  kind: command\n" +
      "  shell: \"grep -q 'rm -rf' && { echo 'no rm in this repository' >&2; exit 2; }; exit 0\"\n",
  );
  const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, ".config"), XDG_STATE_HOME: join(home, ".state") };
  execFileSync(HOOK_BIN, ["trust", "--all", "--yes"], { cwd: ws, env, stdio: "ignore" });
  const q = (t) => `'${t.replaceAll("'", "'\\''")}'`;
  const vars = Object.entries(env)
    .filter(([name]) => ["HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME"].includes(name))
    .map(([name, value]) => `${name}=${q(value)}`)
    .join(" ");
  const hooks = await plugin(config(`${vars} ${q(HOOK_BIN)} bridge --protocol opencode`, 30000), ws);
  const denied = hooks["tool.execute.before"]({ tool: "bash", sessionID: "s1", callID: "c1" }, { args: { command: "rm -rf x" } });
  await assert.rejects(denied, /no rm in this repository/);
  const output = { args: { command: "ls" } };
  await hooks["tool.execute.before"]({ tool: "bash", sessionID: "s1", callID: "c2" }, output);
  assert.deepEqual(output.args, { command: "ls" });
});
