"""A for loop over range(max_heartbeats + 1), one turn per call; the last turn adds the cap event instead of a heartbeat."""
from memlib.agent import Agent
from memlib.tools import dispatch


class MyAgent(Agent):
    def step(self, user_text):
        """One step: the user's message in, tool calls out, chained by heartbeats."""
        trace = self.begin(user_text)
        calls = []
        for beat in range(self.max_heartbeats + 1):
            call = self.ask(trace, calls)
            if call is None:
                return trace
            result = dispatch(call.name, call.arguments, self.memory)
            self.splice(call, result, trace)
            calls.append((call, result))
            if not result.heartbeat:
                return trace
            if beat == self.max_heartbeats:
                trace.add("heartbeat", "heartbeat cap reached, ending the step")
            else:
                trace.add("heartbeat", "requested" if result.ok else "after a failed call")
        return trace
