"""Wrong: at the cap it adds an ordinary heartbeat event first and then the cap event, one heartbeat event too many."""
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
            self.splice(call, result, trace)
            calls.append((call, result))
            if not result.heartbeat:
                break
            trace.add("heartbeat", f"{heartbeats + 1}/{self.max_heartbeats}")
            if heartbeats >= self.max_heartbeats:
                trace.add("heartbeat", "cap reached: the step ends")
                break
            heartbeats += 1
        return trace
