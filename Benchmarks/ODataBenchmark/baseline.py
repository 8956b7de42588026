#!/usr/bin/env python3
"""Python rows of the Satchel OData benchmark, one mode per process (so peak RSS is the mode's own).

  --mode json | orjson   download every page from the benchmark's loopback server first (not timed), then
                         time parsing each page and building one object per entity (dates stay strings);
  --mode odata           time python-odata (V4) reading the collection from the server, following
                         @odata.nextLink, reading every property of every entity.

Prints {"seconds": median, "entities": n, "rssMB": peak RSS} on stdout.

Usage: baseline.py --mode MODE --url BASE_URL --pages N [--runs N]
"""
import argparse
import json
import resource
import statistics
import time
import urllib.request


class Product:
    __slots__ = ("id", "name", "description", "price", "quantity", "in_stock", "release_date", "modified_at",
                 "guid", "discontinued")

    def __init__(self, d):
        self.id = d["ID"]
        self.name = d["Name"]
        self.description = d["Description"]
        self.price = d["Price"]
        self.quantity = d["Quantity"]
        self.in_stock = d["InStock"]
        self.release_date = d["ReleaseDate"]
        self.modified_at = d["ModifiedAt"]
        self.guid = d["ProductGuid"]
        self.discontinued = d["Discontinued"]


def download(base, pages):
    bodies = []
    url = f"{base}/p{pages}/Products"
    while url:
        with urllib.request.urlopen(url) as response:
            body = response.read()
        bodies.append(body)
        url = json.loads(body).get("@odata.nextLink")
    return bodies


def parse_rows(bodies, loads):
    count = 0
    out = []
    for body in bodies:
        doc = loads(body)
        out = [Product(d) for d in doc["value"]]
        count += len(out)
        doc.get("@odata.nextLink")
    return count


def odata_rows(base, pages):
    from odata import ODataService
    from odata.property import (BooleanProperty, DatetimeProperty, DecimalProperty, IntegerProperty,
                                StringProperty, UUIDProperty)

    service = ODataService(f"{base}/p{pages}/", reflect_entities=False)

    class ODataProduct(service.Entity):
        __odata_type__ = "Bench.Product"
        __odata_collection__ = "Products"
        id = IntegerProperty("ID", primary_key=True)
        name = StringProperty("Name")
        description = StringProperty("Description")
        price = DecimalProperty("Price")
        quantity = IntegerProperty("Quantity")
        in_stock = BooleanProperty("InStock")
        release_date = StringProperty("ReleaseDate")
        modified_at = DatetimeProperty("ModifiedAt")
        guid = UUIDProperty("ProductGuid")
        discontinued = DatetimeProperty("Discontinued")

    def run():
        count = 0
        for product in service.query(ODataProduct):
            (product.id, product.name, product.description, product.price, product.quantity, product.in_stock,
             product.release_date, product.modified_at, product.guid, product.discontinued)
            count += 1
        return count

    return run


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", required=True, choices=["json", "orjson", "odata"])
    parser.add_argument("--url", required=True)
    parser.add_argument("--pages", type=int, required=True)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()

    if args.mode == "odata":
        fn = odata_rows(args.url, args.pages)
    else:
        loads = json.loads
        if args.mode == "orjson":
            import orjson
            loads = orjson.loads
        bodies = download(args.url, args.pages)

        def fn():
            return parse_rows(bodies, loads)

    entities = fn()  # warm-up
    times = []
    for _ in range(args.runs):
        start = time.perf_counter()
        entities = fn()
        times.append(time.perf_counter() - start)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KB on Linux
    print(json.dumps({"seconds": statistics.median(times), "entities": entities, "rssMB": rss}))


if __name__ == "__main__":
    main()
