"""Every heartbeat's detail names the cap ("heartbeat 2, cap 5"); the last one says the cap was reached."""
from memlib.agent import Agent
from memlib.tools import dispatch


class MyAgent(Agent):
    def step(self, user_text):
        """One step: the user's message in, tool calls out, chained by heartbeats."""
        trace = self.begin(user_text)
        calls = []
        n = 0
        while True:
            call = self.ask(trace, calls)
            if call is None:
                break
            result = dispatch(call.name, call.arguments, self.memory)
            self.splice(call, result, trace)
            calls.append((call, result))
            if not result.heartbeat:
                break
            if n < self.max_heartbeats:
                n += 1
                trace.add("heartbeat", f"heartbeat {n}, cap {self.max_heartbeats}")
            else:
                trace.add("heartbeat", f"cap {self.max_heartbeats} reached")
                break
        return trace
