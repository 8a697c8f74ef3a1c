"""Every YAML and JSON file under deploy/ parses."""
import json

import yaml

from common import deploy_files, rel
from report import fail, ok, section


def check_files(findings):
    section("YAML and JSON files parse")
    documents = findings.documents
    for path in deploy_files("*.yml", "*.yaml", "*.json"):
        try:
            with open(path) as f:
                if path.endswith(".json"):
                    documents[path] = [json.load(f)]
                else:
                    documents[path] = [d for d in yaml.safe_load_all(f) if d is not None]
            if documents[path]:
                ok(f"{rel(path)} ({len(documents[path])} document{'s' if len(documents[path]) != 1 else ''})")
            else:
                fail(f"{rel(path)}: no document in it")
        except Exception as error:  # noqa: BLE001 - every parse error is a finding
            fail(f"{rel(path)}: {error}")
