#!/usr/bin/env python3
"""Python baseline for the Satchel JSON benchmark.

Reads the page files written by JSONBenchmark (identical bytes), and times for each library
(json, orjson when installed):
  - loads:   parsing every page;
  - objects: parsing every page and building one small Python object per entity from its dict,
             the fair counterpart of decoding into Swift structs (dates stay strings).
Prints the medians as JSON on stdout: {"json_loads": {"seconds": …, "entities": …, "bytes": …}, …}.

Usage: baseline.py PAGE_DIR [--runs N]
"""
import json
import os
import statistics
import sys
import time


class Product:
    __slots__ = ("id", "name", "description", "price", "rating", "in_stock", "discontinued",
                 "release_date", "category", "quantity")

    def __init__(self, d):
        self.id = d["ID"]
        self.name = d["Name"]
        self.description = d["Description"]
        self.price = d["Price"]
        self.rating = d["Rating"]
        self.in_stock = d["InStock"]
        self.discontinued = d["Discontinued"]
        self.release_date = d["ReleaseDate"]
        self.category = d["Category"]
        self.quantity = d["Quantity"]


def main():
    args = sys.argv[1:]
    runs = 5
    if "--runs" in args:
        i = args.index("--runs")
        runs = int(args[i + 1])
        del args[i:i + 2]
    folder = args[0]
    pages = []
    for name in sorted(os.listdir(folder)):
        if name.endswith(".json"):
            with open(os.path.join(folder, name), "rb") as f:
                pages.append(f.read())
    total_bytes = sum(len(p) for p in pages)
    entities = sum(len(json.loads(p)["value"]) for p in pages)

    libraries = [("json", json.loads)]
    try:
        import orjson
        libraries.append(("orjson", orjson.loads))
    except ImportError:
        pass

    results = {}
    for name, loads in libraries:
        def parse_only():
            for page in pages:
                loads(page)

        def objects():
            out = []
            for page in pages:
                doc = loads(page)
                out.extend(Product(d) for d in doc["value"])
                doc.get("@odata.nextLink")
            return out

        for kind, fn in (("loads", parse_only), ("objects", objects)):
            fn()  # warm-up
            times = []
            for _ in range(runs):
                start = time.perf_counter()
                fn()
                times.append(time.perf_counter() - start)
            results[f"{name}_{kind}"] = {
                "seconds": statistics.median(times), "entities": entities, "bytes": total_bytes}
    results["python"] = sys.version.split()[0]
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    main()
