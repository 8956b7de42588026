"""Reads a few things through independent Python OData clients and prints them as JSON, for Satchel's live tests
to compare with what SatchelOData reads from the same server.

    python odata_crosscheck.py v2 SERVICE_URL   # pyodata against a V2 service (GWSAMPLE_BASIC on mock-sap)
    python odata_crosscheck.py v4 SERVICE_URL   # python-odata against a V4 service (the odatapy shop service)

Values are printed in comparable forms: decimals as strings, dates and times as epoch milliseconds, GUIDs in
lower case, enum members by name. Errors go to stderr with a non-zero exit status.
"""

import datetime
import decimal
import enum
import json
import sys
import uuid


def plain(value):
    if isinstance(value, decimal.Decimal):
        return {"decimal": str(value)}
    if isinstance(value, datetime.datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=datetime.timezone.utc)
        return {"epochMillis": round(value.timestamp() * 1000)}
    if isinstance(value, datetime.date):
        return {"date": value.isoformat()}
    if isinstance(value, uuid.UUID):
        return str(value).lower()
    if isinstance(value, enum.Enum):
        return value.name
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def v2(url):
    import requests
    import pyodata

    session = requests.Session()
    session.params = {"sap-client": "100"}
    client = pyodata.Client(url, session)
    products = []
    for product in client.entity_sets.ProductSet.get_entities().order_by("ProductID").execute():
        products.append({name: plain(getattr(product, name))
                         for name in ["ProductID", "Name", "Category", "Price", "WeightMeasure", "CurrencyCode"]})
    lines = client.entity_sets.SalesOrderLineItemSet
    first = lines.get_entities().order_by("SalesOrderID,ItemPosition").top(1).execute()[0]
    line = client.entity_sets.SalesOrderLineItemSet.get_entity(
        SalesOrderID=first.SalesOrderID, ItemPosition=first.ItemPosition).execute()
    line_values = {name: plain(getattr(line, name))
                   for name in ["SalesOrderID", "ItemPosition", "ProductID", "Quantity", "NetAmount", "DeliveryDate"]}
    count = client.entity_sets.SalesOrderLineItemSet.get_entities().count().execute()
    return {"client": "pyodata", "products": products, "line": line_values, "lineCount": count}


def v4(url):
    from odata import ODataService

    service = ODataService(url, reflect_entities=True, quiet_progress=True)
    Product = service.entities["Products"]
    names = ["ID", "Name", "Price", "Stock", "Released", "Modified", "Token", "Status", "CategoryID"]
    products = []
    query = service.query(Product).filter(Product.ID.__le__(30)).order_by(Product.ID.asc())
    for product in query.all():
        products.append({name: plain(getattr(product, name)) for name in names})
    order = service.query(service.entities["Orders"]).get(3)
    return {"client": "python-odata", "products": products,
            "order": {"ID": order.ID, "CustomerName": order.CustomerName, "OrderDate": plain(order.OrderDate)}}


def main(argv):
    if len(argv) != 3 or argv[1] not in ("v2", "v4"):
        print(__doc__, file=sys.stderr)
        return 2
    result = v2(argv[2]) if argv[1] == "v2" else v4(argv[2])
    print(json.dumps(result, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
