"""Wrong: never splices: the calls and results go into `calls` but not into main context (or the trace)."""
from memlib.agent import Agent
from memlib.tools import dispatch


class MyAgent(Agent):
    def step(self, user_text):
        """One step: the user's message in, tool calls out, chained by heartbeats."""
        trace = self.begin(user_text)
        calls = []
        heartbeats = 0
        while True:
            call = self.ask(trace, calls)
            if call is None:
                break
            result = dispatch(call.name, call.arguments, self.memory)
            calls.append((call, result))
            if not result.heartbeat:
                break
            if heartbeats >= self.max_heartbeats:
                trace.add("heartbeat", "cap reached")
                break
            heartbeats += 1
            trace.add("heartbeat", f"{heartbeats}/{self.max_heartbeats}")
        return trace
