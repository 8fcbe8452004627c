// The hook engine's plugin for OpenCode and Kilo Code CLI, written by `hook install`; `hook uninstall` removes it.
// It hands the events below to `hook bridge` (one run per event, the event's input on stdin) and applies the answer:
// a deny throws with the reason (the model reads it as the tool's error), a rewrite replaces the tool's arguments,
// context and notes are appended to the tool's output or the user's message. It fails closed: a bridge that cannot
// start, dies or does not answer in time blocks a gate (`tool.execute.before`, `chat.message`) with a thrown error.
// Plain JavaScript with no dependency, so the agent loads it as it is.
import { spawn } from "node:child_process";
import { constants } from "node:os";

// `hook install` writes this line: the bridge's command line (run with `sh -c`), its program as the reasons name it,
// the agent's id, and how long the bridge may take before a gate fails closed.
const CONFIG = { command: "hook bridge --protocol opencode", program: "hook", agent: "opencode", timeoutMs: 35000 };

// Bus events handed to the bridge as observers (it answers nothing OpenCode reads there).
const OBSERVED = new Set(["session.created", "session.idle"]);
const NOTICE = "[hook notice for the user]";

// What a gate says when the bridge could not decide the call: the words of the fail-closed wrapper `hook install`
// writes for agents of command hooks.
function couldNot(why, config) {
  const program = config.program ?? "hook";
  return (
    `${why}; the call is blocked, since the hook engine could not decide it. Check with: ${program} validate; ` +
    `reinstall with: ${program} install --agent ${config.agent}`
  );
}

// Why the bridge gave no answer, from how its process ended.
function ended(run, config) {
  const program = config.program ?? "hook";
  const signal = run.signal ? constants.signals[run.signal] : run.code > 128 ? run.code - 128 : undefined;
  if (signal !== undefined) return `${program} was killed by signal ${signal}`;
  if (run.code === 127) return `${program} was not found on the PATH the agent gives its hooks (exit 127)`;
  if (run.code === 126) return `${program} is not executable (exit 126)`;
  return `${program} exited with status ${run.code}, which hook bridge never uses`;
}

// Runs the bridge with `payload` on stdin: `{code, signal, stdout, stderr}`, or `{failure}` when it could not be
// started or did not finish within the timeout (its process group is killed then).
function runBridge(payload, config) {
  return new Promise((resolve) => {
    let child;
    let settled = false;
    const out = [];
    const err = [];
    const settle = (result) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // Already gone.
      }
      settle({ failure: couldNot(`${config.program ?? "hook"} did not answer within ${config.timeoutMs} ms`, config) });
    }, config.timeoutMs);
    try {
      child = spawn("/bin/sh", ["-c", config.command], { stdio: ["pipe", "pipe", "pipe"], detached: true });
    } catch (error) {
      settle({ failure: couldNot(`sh could not be started: ${error.message}`, config) });
      return;
    }
    child.on("error", (error) => settle({ failure: couldNot(`sh could not be started: ${error.message}`, config) }));
    child.stdout.on("data", (chunk) => out.push(chunk));
    child.stderr.on("data", (chunk) => err.push(chunk));
    child.on("close", (code, signal) =>
      settle({ code, signal, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString().trim() }),
    );
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify(payload) + "\n");
  });
}

// The bridge's answer (Claude Code's shape) as what the plugin does: `deny` (a reason), `rewrite` (the new
// arguments), `context` and `notices` (texts), or `failure` when there is no answer to read.
function interpret(run, config) {
  const read = { context: [], notices: [] };
  if (run.failure) return { ...read, failure: run.failure };
  if (run.code === 2) return { ...read, deny: run.stderr || "blocked by a hook" };
  if (run.code === 1) return { ...read, notices: run.stderr ? [run.stderr] : [] };
  if (run.code !== 0) return { ...read, failure: `${couldNot(ended(run, config), config)}${said(run.stderr)}` };
  const text = run.stdout.trim();
  if (!text) return read;
  let answer;
  try {
    answer = JSON.parse(text);
  } catch {
    const why = `${config.program ?? "hook"} answered something that is not JSON: ${text.slice(0, 200)}`;
    return { ...read, failure: couldNot(why, config) };
  }
  const specific = answer.hookSpecificOutput ?? {};
  if (specific.permissionDecision === "deny") read.deny = specific.permissionDecisionReason || "denied by a hook";
  if (specific.permissionDecision === "ask") {
    const why = specific.permissionDecisionReason ? `: ${specific.permissionDecisionReason}` : "";
    read.deny = `approval is required and this agent cannot ask for it here${why}`;
  }
  if (specific.updatedInput && typeof specific.updatedInput === "object") read.rewrite = specific.updatedInput;
  if (specific.additionalContext) read.context.push(specific.additionalContext);
  if (answer.decision === "block") read.block = answer.reason || "blocked by a hook";
  if (answer.continue === false) read.halt = answer.stopReason || "a hook stopped the run";
  if (answer.systemMessage) read.notices.push(answer.systemMessage);
  return read;
}

function said(stderr) {
  return stderr ? ` (it said: ${stderr.slice(0, 500)})` : "";
}

function announce(notices) {
  for (const notice of notices) console.error(`hook: ${notice}`);
}

function bridgeFor(directory, config) {
  return async (payload) => interpret(await runBridge({ cwd: directory, ...payload }, config), config);
}

// Notices the bridge gave on a call that went ahead (a guard that did not run, a hook that failed), by call: OpenCode
// has no channel for the user alone, so they reach the model beside the tool's output, marked as for the user.
const untold = new Map();

async function beforeTool(ask, input, output) {
  const read = await ask({
    hook_event_name: "tool.execute.before",
    session_id: input.sessionID,
    tool_name: input.tool,
    tool_input: output.args ?? {},
  });
  announce(read.notices);
  const stop = read.failure ?? read.deny ?? read.block ?? read.halt;
  if (stop !== undefined) throw new Error(stop);
  if (read.notices.length > 0) untold.set(input.callID, read.notices);
  if (read.rewrite) {
    for (const key of Object.keys(output.args ?? {})) delete output.args[key];
    Object.assign(output.args, read.rewrite);
  }
}

async function afterTool(ask, input, output) {
  const read = await ask({
    hook_event_name: "tool.execute.after",
    session_id: input.sessionID,
    tool_name: input.tool,
    tool_input: input.args ?? {},
    tool_response: typeof output.output === "string" ? output.output : JSON.stringify(output.output ?? null),
  });
  const notes = (untold.get(input.callID) ?? []).map((notice) => `${NOTICE} ${notice}`);
  untold.delete(input.callID);
  notes.push(...read.context);
  if (read.block !== undefined) notes.push(read.block);
  if (read.failure !== undefined) notes.push(`${NOTICE} ${read.failure}`);
  announce(read.notices);
  if (notes.length > 0) output.output = [output.output ?? "", ...notes].join("\n\n");
}

async function userMessage(ask, input, output) {
  const parts = output.parts ?? [];
  const prompt = parts
    .filter((part) => part.type === "text" && !part.synthetic)
    .map((part) => part.text)
    .join("\n");
  const read = await ask({ hook_event_name: "chat.message", session_id: input.sessionID, prompt });
  announce(read.notices);
  const stop = read.failure ?? read.deny ?? read.block ?? read.halt;
  if (stop !== undefined) throw new Error(stop);
  const text = parts.findLast((part) => part.type === "text");
  if (read.context.length > 0 && text) text.text = [text.text, ...read.context].join("\n\n");
}

async function observe(ask, event) {
  if (!OBSERVED.has(event?.type)) return;
  const session = event.properties?.info?.id ?? event.properties?.sessionID;
  const read = await ask({ hook_event_name: event.type, session_id: session });
  announce(read.failure ? [...read.notices, read.failure] : read.notices);
}

// The plugin: OpenCode calls it once per project with its context and uses the handlers it returns.
export const HookEngine = async ({ directory }) => {
  const ask = bridgeFor(directory, CONFIG);
  return {
    "tool.execute.before": (input, output) => beforeTool(ask, input, output),
    "tool.execute.after": (input, output) => afterTool(ask, input, output),
    "chat.message": (input, output) => userMessage(ask, input, output),
    event: ({ event }) => observe(ask, event),
  };
};
