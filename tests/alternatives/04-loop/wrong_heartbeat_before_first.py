"""Wrong: adds a heartbeat event before the first ask too, so every step starts with one heartbeat that nothing asked for."""
from memlib.agent import Agent
from memlib.tools import dispatch


class MyAgent(Agent):
    def step(self, user_text):
        """One step: the user's message in, tool calls out, chained by heartbeats."""
        trace = self.begin(user_text)
        calls = []
        heartbeats = 0
        result = None
        while result is None or result.heartbeat:
            if result is not None and heartbeats >= self.max_heartbeats:
                trace.add("heartbeat", "cap reached")
                break
            if result is not None:
                heartbeats += 1
            trace.add("heartbeat", f"{heartbeats}/{self.max_heartbeats}: the policy runs")
            call = self.ask(trace, calls)
            if call is None:
                break
            result = dispatch(call.name, call.arguments, self.memory)
            self.splice(call, result, trace)
            calls.append((call, result))
        return trace
