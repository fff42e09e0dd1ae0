"""Adds the heartbeat event at the top of each later turn, just before asking; checks the cap there too."""
from memlib.agent import Agent
from memlib.tools import dispatch


class MyAgent(Agent):
    def step(self, user_text):
        """One step: the user's message in, tool calls out, chained by heartbeats."""
        trace = self.begin(user_text)
        calls = []
        result = None
        used = 0
        while result is None or result.heartbeat:
            if result is not None:  # the previous call asked for another turn
                if used == self.max_heartbeats:
                    trace.add("heartbeat", f"the cap ({used}) is reached")
                    break
                used += 1
                trace.add("heartbeat", f"#{used}")
            call = self.ask(trace, calls)
            if call is None:
                break
            result = dispatch(call.name, call.arguments, self.memory)
            self.splice(call, result, trace)
            calls.append((call, result))
        return trace
