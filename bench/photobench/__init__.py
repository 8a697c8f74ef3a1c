"""The throughput suite behind bench/run, a module per tool and one for the report (see
bench/bench.py)."""
