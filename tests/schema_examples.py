"""Every shipped example (config/examples/*.yaml) validates against pfmc's JSON Schema with a stock
validator (Python's jsonschema), and planted mistakes are refused: an unknown key, a value not
among a choice's, a model type's missing required key. Usage: schema_examples.py SCHEMA FOLDER"""

import copy
import glob
import json
import os
import sys

try:
    import jsonschema
    import yaml
except ImportError as e:  # scripts/install-deps.sh installs both (python3-jsonschema, python3-yaml)
    sys.exit(f"FAIL: {e.name} is missing: run scripts/install-deps.sh")


class Yaml12Loader(yaml.SafeLoader):
    """YAML 1.2's booleans only (true/false), as yaml-cpp and editors' language servers read
    them: PyYAML's YAML 1.1 would read a ladder's `on:` key as True."""


Yaml12Loader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:bool"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
Yaml12Loader.add_implicit_resolver(
    "tag:yaml.org,2002:bool",
    __import__("re").compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
    list("tTfF"),
)


def errors(validator, document):
    return sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path))


def main():
    schema_path, folder = sys.argv[1], sys.argv[2]
    with open(schema_path, encoding="utf-8") as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    failed = 0
    examples = sorted(glob.glob(os.path.join(folder, "*.yaml")))
    if not examples:
        sys.exit(f"FAIL: no examples in {folder}")
    documents = {}
    for path in examples:
        with open(path, encoding="utf-8") as f:
            documents[path] = yaml.load(f, Loader=Yaml12Loader)
        found = errors(validator, documents[path])
        for e in found[:5]:
            print(f"FAIL: {path}: {'/'.join(map(str, e.absolute_path))}: {e.message}")
        failed += bool(found)
    print(f"{len(examples) - failed} of {len(examples)} examples valid against {schema_path}")

    # The schema must be able to refuse: each plant in a valid example must give an error.
    base = documents[os.path.join(folder, "heston.yaml")]
    plants = {
        "an unknown engine key": lambda d: d.setdefault("engine", {}).update(bogus=1),
        "an rng not among the choices": lambda d: d.setdefault("simulation", {}).update(rng="xorshift"),
        "a heston model without kappa": lambda d: next(
            m for m in d["models"] if m["type"] == "heston").pop("kappa"),
        "an instrument without a strike": lambda d: d["instruments"][0].pop("strike"),
    }
    for name, plant in plants.items():
        document = copy.deepcopy(base)
        plant(document)
        if errors(validator, document):
            print(f"ok: refused {name}")
        else:
            print(f"FAIL: the schema accepted {name}")
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
