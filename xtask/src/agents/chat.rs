//! The OpenAI Chat Completions API as the scripted model server speaks it, for every agent that calls it (Qwen
//! Code, Cline, GitHub Copilot CLI, Factory Droid): `GET …/models` lists the one model; each turn is `POST
//! …/chat/completions` with `stream: true`, answered with chat-completion chunks — the scripted shell call as the
//! agent's own shell tool, or text; any other completion is a side call, answered at once.

use serde_json::{Value, json};

use super::server::{Reply, Route, Step, Wire};

/// One agent's view of the API: what differs between them is the model id, its shell tool and its arguments, and
/// the text of a side call's answer.
pub struct ChatCompletions {
    /// The model id the agent is configured with.
    pub model: &'static str,
    /// The agent's shell tool, as the model calls it.
    pub shell_tool: &'static str,
    /// That tool's arguments for one command.
    pub shell_arguments: fn(&str) -> Value,
    /// The content of the answer to a side call (not streamed).
    pub side_answer: fn() -> String,
}

impl Wire for ChatCompletions {
    fn route(&self, method: &str, path: &str, body: &Value) -> Route {
        if method == "GET" && path.contains("/models") {
            return Route::Reply(Reply::json(
                &json!({"object": "list", "data": [{"id": self.model, "object": "model"}]}),
            ));
        }
        if method != "POST" || !path.contains("/chat/completions") {
            return Route::Reply(Reply::error(404, "not here"));
        }
        if body["stream"] == true {
            return Route::Turn;
        }
        Route::Reply(Reply::json(&json!({
            "id": "side", "object": "chat.completion", "created": 1, "model": self.model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": (self.side_answer)()},
                         "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        })))
    }

    fn turn(&self, step: &Step, turn: usize) -> Reply {
        let (delta, finish) = match step {
            Step::Shell(command) | Step::Escalated(command) => {
                let arguments = (self.shell_arguments)(command).to_string();
                let call = json!({"index": 0, "id": format!("call_{turn}"), "type": "function",
                                  "function": {"name": self.shell_tool, "arguments": arguments}});
                (json!({"role": "assistant", "tool_calls": [call]}), "tool_calls")
            }
            Step::Text(text) => (json!({"role": "assistant", "content": text}), "stop"),
        };
        let chunk = |choice: Value, usage: Option<Value>| {
            let mut chunk = json!({"id": format!("turn-{turn}"), "object": "chat.completion.chunk", "created": 1,
                                   "model": self.model, "choices": [choice]});
            if let Some(usage) = usage {
                chunk["usage"] = usage;
            }
            format!("data: {chunk}\n\n")
        };
        let usage = json!({"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15});
        let text = chunk(json!({"index": 0, "delta": delta, "finish_reason": null}), None)
            + &chunk(json!({"index": 0, "delta": {}, "finish_reason": finish}), Some(usage))
            + "data: [DONE]\n\n";
        Reply::sse(text)
    }
}

/// The side-call answer of an agent that only needs some text.
pub fn ok() -> String {
    "ok".to_owned()
}
