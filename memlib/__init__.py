"""memlib: the memory system behind *Virtual context, hands-on*.

An agent's main context is RAM, archival and recall storage are disk, and the
memory tools page facts in and out. Each concept lives in its own module;
plotly and ipywidgets are imported lazily by `memlib.viz` only.
"""

__version__ = "0.3.0"
