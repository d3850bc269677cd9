"""--audit FILE: one JSON line per declassification, capability use and label violation.

Only metadata is written (labels, reasons, hosts, positions): never the data itself, and
never a key (the provider code scrubs keys from every message it makes)."""

import json


class Audit:
    def __init__(self, path):
        self.path = path
        self._fh = open(path, "a", encoding="utf-8")

    def write(self, event):
        self._fh.write(json.dumps(event, sort_keys=True, ensure_ascii=False) + "\n")
        self._fh.flush()

    def close(self):
        self._fh.close()
