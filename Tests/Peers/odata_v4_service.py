"""Satchel's OData V4 test peer: odatapy's in-memory reference service over a stdlib WSGI server.

Serves the committed model (odata_v4_service.xml, next to this file) at http://127.0.0.1:PORT/odata with seeded
data: 5 categories, 250 products (server-driven paging with a small page size), 20 orders with 1-4 items each
(composite key), 3 media documents; ETags on products, orders and documents; change tracking (delta links, with
the links added and removed since: $link and $deletedLink, which odatapy alone does not report);
the Restock action, the ProductsByCategory and TotalStock functions; $batch in both formats.

    python odata_v4_service.py --port 8080 [--page-size 20] [--tls-cert CERT.pem --tls-key KEY.pem]

With a certificate and key it serves HTTPS (TLS 1.2 and up) instead, at https://127.0.0.1:PORT/odata.
"""

import argparse
import datetime
import json
import os
import socketserver
import ssl
import sys
import threading
import uuid
from decimal import Decimal
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from odatapy.data import ComplexValue, DeltaLink, Entity, Property, ValueType
from odatapy.edm.xml_io import XmlEdmProvider
from odatapy.server import OData
from odatapy.server.adapters import ODataWSGIApp
from odatapy.server.inmemory import InMemoryDataStore, InMemoryProcessor
from odatapy.server.processor import ActionProcessor, CustomETagSupport

NS = "Satchel.Shop"
CATEGORY_NAMES = ["Books", "Garden", "Kitchen", "Music", "Tools"]
STATUSES = ["Active", "Backordered", "Discontinued"]
CITIES = [("Jackson", "39201"), ("Oxford", "38655"), ("Tupelo", "38801"), ("Biloxi", "39530")]


def entity(type_name, **values):
    item = Entity(type=f"{NS}.{type_name}")
    for name, (value, edm_type) in values.items():
        kind = ValueType.PRIMITIVE
        if edm_type.startswith(NS):
            kind = ValueType.COMPLEX if isinstance(value, ComplexValue) else ValueType.ENUM
        item.set_property(name, value, kind, edm_type)
    return item


def key(*values):
    """The in-memory store's relation key for an entity with these key values."""
    return "|".join(repr(value) for value in values)


def seed(store):
    base = datetime.datetime(2026, 1, 1, 8, 0, tzinfo=datetime.timezone.utc)
    categories = [
        entity("Category", ID=(index + 1, "Edm.Int32"), Name=(name, "Edm.String"))
        for index, name in enumerate(CATEGORY_NAMES)
    ]
    products = []
    for number in range(1, 251):
        category = (number - 1) % len(categories) + 1
        products.append(entity(
            "Product",
            ID=(number, "Edm.Int32"),
            Name=(f"Product {number:03d}", "Edm.String"),
            Price=(Decimal(number * 7 % 1000) / Decimal(4) + Decimal("0.99"), "Edm.Decimal"),
            Stock=(number * 1_000_000_007 if number % 50 == 0 else number * 3, "Edm.Int64"),
            Released=(datetime.date(2020, 1, 1) + datetime.timedelta(days=number * 5), "Edm.Date"),
            Modified=(base + datetime.timedelta(hours=number, seconds=number % 60), "Edm.DateTimeOffset"),
            Token=(uuid.UUID(int=number * 0x1000100010001), "Edm.Guid"),
            Thumbnail=(bytes([number % 256, 0xFF, 0xFB, 0x3E]), "Edm.Binary"),
            Status=(STATUSES[number % 3], f"{NS}.ProductStatus"),
            CategoryID=(category, "Edm.Int32"),
        ))
    orders = []
    items = []
    for number in range(1, 21):
        city, postal = CITIES[number % len(CITIES)]
        address = ComplexValue(type_name=f"{NS}.Address", properties=[
            Property(name="Street", value=f"{number} Main Street", value_type=ValueType.PRIMITIVE, type="Edm.String"),
            Property(name="City", value=city, value_type=ValueType.PRIMITIVE, type="Edm.String"),
            Property(name="PostalCode", value=postal, value_type=ValueType.PRIMITIVE, type="Edm.String"),
        ])
        order = entity(
            "Order",
            ID=(number, "Edm.Int32"),
            CustomerName=(f"Customer {number}", "Edm.String"),
            OrderDate=(base + datetime.timedelta(days=number), "Edm.DateTimeOffset"),
            ShipTo=(address, f"{NS}.Address"),
        )
        orders.append(order)
        lines = []
        for line in range(1, number % 4 + 2):
            product = products[(number * 11 + line) % len(products)]
            lines.append(entity(
                "OrderItem",
                OrderID=(number, "Edm.Int32"),
                LineNumber=(line, "Edm.Int32"),
                ProductID=(product.get_value("ID"), "Edm.Int32"),
                Quantity=(line * 2, "Edm.Int32"),
            ))
            store.set_relation("OrderItems", key(number, line), "Product", [product])
            store.set_relation("OrderItems", key(number, line), "Order", [order])
        store.set_relation("Orders", key(number), "Items", lines)
        items.extend(lines)
    for category in categories:
        members = [p for p in products if p.get_value("CategoryID") == category.get_value("ID")]
        store.set_relation("Categories", key(category.get_value("ID")), "Products", members)
        for product in members:
            store.set_relation("Products", key(product.get_value("ID")), "Category", [category])
    documents = []
    for number, (title, text) in enumerate(
        [("Readme", "Satchel test document one\n"), ("Notes", "two\n" * 100), ("Empty", "")], start=1
    ):
        document = entity("Document", ID=(number, "Edm.Int32"), Title=(title, "Edm.String"))
        document.media_content = text.encode()
        document.media_content_type = "text/plain"
        document.media_etag = 'W/"1"'
        documents.append(document)
    store.set_entities("Categories", categories)
    store.set_entities("Products", products)
    store.set_entities("Orders", orders)
    store.set_entities("OrderItems", items)
    store.set_entities("Documents", documents)
    store.declare_key_auto_generating("Documents", "Categories")


# Navigation → (target set); and each set's key properties, for entity ids in $link / $deletedLink.
LINK_TARGETS = {
    ("Orders", "Items"): "OrderItems", ("OrderItems", "Order"): "Orders", ("OrderItems", "Product"): "Products",
    ("Categories", "Products"): "Products", ("Products", "Category"): "Categories",
}
KEYS = {"Orders": ["ID"], "OrderItems": ["OrderID", "LineNumber"], "Products": ["ID"], "Categories": ["ID"]}


def entity_id(entity_set, values):
    names = KEYS[entity_set]
    if len(names) == 1:
        return f"{entity_set}({values[0]})"
    return f"{entity_set}(" + ",".join(f"{name}={value}" for name, value in zip(names, values)) + ")"


class LinkTrackingStore(InMemoryDataStore):
    """Records links added and removed once `tracking` is on (after seeding), in the change sequence, so a delta
    response can report them."""

    def __init__(self):
        super().__init__()
        self.tracking = False
        self.link_log = []

    def _log(self, entity_set, key, nav, target, removed):
        target_set = LINK_TARGETS.get((entity_set, nav))
        if not self.tracking or target_set is None or target is None:
            return
        source = entity_id(entity_set, key.split("|"))
        destination = entity_id(target_set, [target.get_value(name) for name in KEYS[target_set]])
        with self._lock:
            self._sequence += 1
            self.link_log.append({"seq": self._sequence, "entity_set": entity_set, "source": source,
                                  "relationship": nav, "target": destination, "removed": removed})

    def add_relation(self, entity_set, key, nav, target):
        before = self.relation(entity_set, key, nav) or []
        super().add_relation(entity_set, key, nav, target)
        if not any(existing is target for existing in before):
            self._log(entity_set, key, nav, target, False)

    def set_relation(self, entity_set, key, nav, targets):
        before = self.relation(entity_set, key, nav) or []
        super().set_relation(entity_set, key, nav, targets)
        for old in before:
            if not any(old is new for new in targets):
                self._log(entity_set, key, nav, old, True)
        for new in targets:
            if not any(new is old for old in before):
                self._log(entity_set, key, nav, new, False)

    def remove_relation(self, entity_set, key, nav, target=None):
        before = self.relation(entity_set, key, nav) or []
        super().remove_relation(entity_set, key, nav, target)
        for old in before:
            if target is None or old is target:
                self._log(entity_set, key, nav, old, True)

    def links_since(self, token, entity_set):
        try:
            since = int(token)
        except (TypeError, ValueError):
            since = 0
        with self._lock:
            return [link for link in self.link_log if link["seq"] > since and link["entity_set"] == entity_set]


class LinkDeltaProcessor(InMemoryProcessor):
    """Adds the links changed since the delta token to delta responses."""

    _pending_links = None

    def _read_delta(self, request, response, uri_info, target, ct):
        self._pending_links = (uri_info.deltatoken or "0", target.entity_set.name)
        try:
            return super()._read_delta(request, response, uri_info, target, ct)
        finally:
            self._pending_links = None

    def _serializer(self, ct, request):
        serializer = super()._serializer(ct, request)
        pending = self._pending_links
        if pending is None or not hasattr(serializer, "delta"):
            return serializer
        store = self.store

        class WithLinks:
            def __getattr__(self, name):
                return getattr(serializer, name)

            def delta(self, edm, entity_type, delta, *args, **kwargs):
                for link in store.links_since(*pending):
                    change = DeltaLink(source=link["source"], relationship=link["relationship"], target=link["target"])
                    (delta.deleted_links if link["removed"] else delta.added_links).append(change)
                return serializer.delta(edm, entity_type, delta, *args, **kwargs)

        return WithLinks()


class ShopETags(CustomETagSupport):
    def has_etag(self, entity_set_or_singleton):
        return getattr(entity_set_or_singleton, "name", "") in {"Products", "Orders", "Documents"}

    def has_media_etag(self, entity_set_or_singleton):
        return getattr(entity_set_or_singleton, "name", "") == "Documents"


def total_stock(store):
    return sum(p.get_value("Stock") or 0 for p in store.entities("Products"))


def register_functions(processor, store):
    def products_by_category(target, part):
        raw = (getattr(part, "typed_parameters", None) or {}).get("CategoryID")
        if raw is None:
            raw = int(str(part.parameters.get("CategoryID", "0")))
        return [p for p in store.entities("Products") if p.get_value("CategoryID") == int(raw)]

    processor.register_function(f"{NS}.ProductsByCategory", products_by_category)
    processor.register_function(f"{NS}.TotalStock", lambda target, part: total_stock(store))


class RestockAction(ActionProcessor):
    """Restock(ProductID, Quantity) adds Quantity to the product's Stock and returns the new stock."""

    def __init__(self, store, processor):
        self.store = store
        self.processor = processor

    def process_action(self, request, response, uri_info, request_ct, response_ct):
        try:
            body = json.loads(request.body or b"{}")
            product_id = int(body["ProductID"])
            quantity = int(body["Quantity"])
        except (ValueError, KeyError, TypeError) as error:
            return self._fail(response, 400, f"Restock needs ProductID and Quantity: {error}")
        with self.store.lock:
            product = next((p for p in self.store.entities("Products") if p.get_value("ID") == product_id), None)
            if product is None:
                return self._fail(response, 404, f"No product with ID {product_id}.")
            stock = (product.get_value("Stock") or 0) + quantity
            product.set_property("Stock", stock, ValueType.PRIMITIVE, "Edm.Int64")
            products = self.processor.service_metadata.edm.get_entity_set("Products")
            self.processor._bump_etag(products, product)
            self.store.record_change("Products", product, "changed")
        base = request.raw_base_uri if hasattr(request, "raw_base_uri") else ""
        payload = {"@odata.context": f"{base}/$metadata#Edm.Int64", "value": stock}
        response.set_content(json.dumps(payload).encode(), "application/json;odata.metadata=minimal")
        response.set_status(200)
        response.set_header("OData-Version", "4.0")

    def _fail(self, response, status, message):
        payload = {"error": {"code": str(status), "message": message}}
        response.set_content(json.dumps(payload).encode(), "application/json")
        response.set_status(status)
        response.set_header("OData-Version", "4.0")


class QuietHandler(WSGIRequestHandler):
    def log_message(self, format, *args):
        pass


class ThreadingWSGIServer(socketserver.ThreadingMixIn, WSGIServer):
    daemon_threads = True
    allow_reuse_address = False


def serialized(app):
    """Answers one request at a time, body included.

    The in-memory store and the handler keep per-request state that concurrent requests can trample: once, under
    a parallel test run, a $metadata answer came back empty while other requests were served.
    """
    lock = threading.Lock()

    def wrapped(environ, start_response):
        with lock:
            body = app(environ, start_response)
            try:
                return [b"".join(body)]
            finally:
                if hasattr(body, "close"):
                    body.close()

    return wrapped


def repeatable(app):
    """OASIS Repeatable Requests 1.0 for modifying requests: the first request with a Repeatability-Request-ID is
    applied and its response kept; a repeat of that id gets the kept response, not a second application. Both carry
    Repeatability-Result: accepted. GET /_repeatability reports how many were applied and how many replayed.
    """
    lock = threading.Lock()
    kept = {}
    counts = {"applied": 0, "replayed": 0}

    def wrapped(environ, start_response):
        if environ.get("PATH_INFO") == "/_repeatability":
            with lock:
                body = json.dumps(counts).encode()
            start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
            return [body]
        method = environ.get("REQUEST_METHOD", "GET")
        request_id = environ.get("HTTP_REPEATABILITY_REQUEST_ID")
        if method not in ("POST", "PATCH", "PUT", "DELETE", "MERGE") or not request_id:
            return app(environ, start_response)
        if not environ.get("HTTP_REPEATABILITY_FIRST_SENT"):
            body = b'{"error":{"code":"400","message":"Repeatability-First-Sent is required"}}'
            start_response("400 Bad Request", [("Content-Type", "application/json")])
            return [body]
        with lock:
            if request_id in kept:
                counts["replayed"] += 1
                status, headers, body = kept[request_id]
                start_response(status, headers + [("Repeatability-Result", "accepted")])
                return [body]
            captured = {}

            def capture(status, headers, exc_info=None):
                captured["status"] = status
                captured["headers"] = list(headers)
                return lambda data: None

            body = b"".join(app(environ, capture))
            kept[request_id] = (captured["status"], captured["headers"], body)
            counts["applied"] += 1
        start_response(captured["status"], captured["headers"] + [("Repeatability-Result", "accepted")])
        return [body]

    return wrapped


def build_app(page_size, model=None):
    here = os.path.dirname(os.path.abspath(__file__))
    provider = XmlEdmProvider.from_file(model or os.path.join(here, "odata_v4_service.xml"))
    odata = OData.new_instance()
    handler = odata.create_handler(odata.create_service_metadata(provider))
    store = LinkTrackingStore()
    seed(store)
    store.tracking = True
    processor = LinkDeltaProcessor(store, page_size=page_size)
    register_functions(processor, store)
    handler.register(processor)
    handler.register(RestockAction(store, processor))
    handler.register(ShopETags())
    return serialized(ODataWSGIApp(handler, mount_path="/odata"))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--page-size", type=int, default=20)
    parser.add_argument("--repeatable", action="store_true", help="honour Repeatability-Request-ID (OASIS)")
    parser.add_argument("--tls-cert", help="serve HTTPS with this certificate chain (PEM)")
    parser.add_argument("--tls-key", help="the certificate's private key (PEM)")
    parser.add_argument("--model", help="serve this CSDL document instead of odata_v4_service.xml (the same data)")
    arguments = parser.parse_args(argv)
    if bool(arguments.tls_cert) != bool(arguments.tls_key):
        parser.error("--tls-cert and --tls-key go together")
    app = build_app(arguments.page_size, arguments.model)
    if arguments.repeatable:
        app = repeatable(app)
    server = make_server("127.0.0.1", arguments.port, app, server_class=ThreadingWSGIServer,
                         handler_class=QuietHandler)
    scheme = "http"
    if arguments.tls_cert:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        context.load_cert_chain(arguments.tls_cert, arguments.tls_key)
        # The handshake happens on the request's own thread, at its first read, not in accept.
        server.socket = context.wrap_socket(server.socket, server_side=True, do_handshake_on_connect=False)
        server.base_environ["HTTPS"] = "on"  # wsgi.url_scheme, and so the service's links, say https
        scheme = "https"
    print(f"odata_v4_service: {scheme}://127.0.0.1:{arguments.port}/odata", file=sys.stderr, flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
