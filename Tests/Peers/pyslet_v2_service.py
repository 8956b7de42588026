"""An OData V2 service that answers in Atom XML by default (pyslet's in-memory data service), for Satchel's tests.

Usage: pyslet_v2_service.py --port PORT [--products N] [--page-size N] [--atom-only]
Serves http://127.0.0.1:PORT/shop/ with Products (ID, Name, Price Edm.Double, Stock Edm.Int64, Released
Edm.DateTime, Note nullable) and Categories, Products linked to one Category. With --atom-only it speaks Atom
alone, as a service that offers no JSON: an Accept naming JSON is answered in Atom, and a JSON body is refused
with 415. Prints its banner on standard error once it listens.
"""
import argparse
import os
import sys
from wsgiref.simple_server import WSGIRequestHandler, make_server

import pyslet.odata2.memds as memds
import pyslet.odata2.metadata as edmx
from pyslet.iso8601 import TimePoint
from pyslet.odata2 import csdl
from pyslet.odata2.server import Server

# pyslet 0.7 writes a next link after every page once it pages (topmax), even after the last one, and the page
# it links to is empty with a next link again: a client that follows next links never ends. Only a page that was
# cut short at topmax gets a next link here.
_iterpage = csdl.EntityCollection.iterpage


def _iterpage_with_honest_next_link(self, set_next=False):
    forced = bool(self.topmax) and (self.top is None or self.top > self.topmax)
    count = 0
    for entity in _iterpage(self, set_next):
        count += 1
        yield entity
    if forced and count < self.topmax:
        self.nextSkiptoken = None


csdl.EntityCollection.iterpage = _iterpage_with_honest_next_link

CSDL = """<?xml version="1.0" encoding="utf-8"?>
<edmx:Edmx Version="1.0" xmlns:edmx="http://schemas.microsoft.com/ado/2007/06/edmx"
 xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata">
<edmx:DataServices m:DataServiceVersion="2.0">
<Schema Namespace="Shop" xmlns="http://schemas.microsoft.com/ado/2006/04/edm">
<EntityType Name="Product"><Key><PropertyRef Name="ID"/></Key>
<Property Name="ID" Type="Edm.Int32" Nullable="false"/>
<Property Name="Name" Type="Edm.String" Nullable="false"/>
<Property Name="Price" Type="Edm.Double" Nullable="false"/>
<Property Name="Stock" Type="Edm.Int64" Nullable="false"/>
<Property Name="Released" Type="Edm.DateTime" Nullable="true"/>
<Property Name="Note" Type="Edm.String" Nullable="true"/>
<NavigationProperty Name="Category" Relationship="Shop.ProductCategory" FromRole="Product" ToRole="Category"/>
</EntityType>
<EntityType Name="Category"><Key><PropertyRef Name="Code"/></Key>
<Property Name="Code" Type="Edm.String" Nullable="false" MaxLength="10"/>
<Property Name="Title" Type="Edm.String" Nullable="false"/>
<NavigationProperty Name="Products" Relationship="Shop.ProductCategory" FromRole="Category" ToRole="Product"/>
</EntityType>
<Association Name="ProductCategory">
<End Role="Product" Type="Shop.Product" Multiplicity="*"/><End Role="Category" Type="Shop.Category" Multiplicity="0..1"/>
</Association>
<EntityContainer Name="Shop" m:IsDefaultEntityContainer="true">
<EntitySet Name="Products" EntityType="Shop.Product"/>
<EntitySet Name="Categories" EntityType="Shop.Category"/>
<AssociationSet Name="ProductCategories" Association="Shop.ProductCategory">
<End Role="Product" EntitySet="Products"/><End Role="Category" EntitySet="Categories"/>
</AssociationSet>
</EntityContainer>
</Schema></edmx:DataServices></edmx:Edmx>"""


class QuietHandler(WSGIRequestHandler):
    def log_message(self, *args):
        if os.environ.get("SATCHEL_PEER_LOG"):
            super().log_message(*args)


def atom_only(app):
    """A service that offers no JSON: Accept is read as Atom, $format=json and JSON bodies are refused."""

    def wrapped(environ, start_response):
        accept = environ.get("HTTP_ACCEPT", "")
        if "json" in accept:
            environ["HTTP_ACCEPT"] = "application/atom+xml, application/xml;q=0.9, text/plain;q=0.5"
        if "format=json" in environ.get("QUERY_STRING", "") or "json" in environ.get("CONTENT_TYPE", ""):
            body = b"<error><message>this service speaks Atom only</message></error>"
            start_response("415 Unsupported Media Type", [("Content-Type", "application/xml")])
            return [body]
        return app(environ, start_response)

    return wrapped


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--atom-only", action="store_true")
    parser.add_argument("--products", type=int, default=30)
    parser.add_argument("--page-size", type=int, default=0, help="server-driven paging (0: none)")
    args = parser.parse_args()
    doc = edmx.Document()
    doc.read(CSDL)
    memds.InMemoryEntityContainer(doc.root.DataServices["Shop.Shop"])
    server = Server(serviceRoot="http://127.0.0.1:%d/shop/" % args.port)
    server.set_model(doc)
    server.topmax = args.page_size or None
    services = doc.root.DataServices
    with services["Shop.Shop.Categories"].open() as categories:
        for code, title in (("TOOLS", "Tools"), ("FOOD", "Food & Drink")):
            c = categories.new_entity()
            c["Code"].set_from_value(code)
            c["Title"].set_from_value(title)
            categories.insert_entity(c)
    with services["Shop.Shop.Products"].open() as products:
        for i in range(1, args.products + 1):
            p = products.new_entity()
            p["ID"].set_from_value(i)
            p["Name"].set_from_value("Product <%d> & more" % i)
            p["Price"].set_from_value(1.25 * i)
            p["Stock"].set_from_value(10_000_000_000 + i)
            p["Released"].set_from_value(TimePoint.from_str("2026-01-%02dT10:30:00" % (i % 28 + 1)))
            if i % 3:
                p["Note"].set_from_value("note %d" % i)
            products.insert_entity(p)
    with services["Shop.Shop.Products"].open() as products:
        for i in range(1, args.products + 1):
            with products[i]["Category"].open() as nav:
                nav.replace(services["Shop.Shop.Categories"].open()["TOOLS" if i % 2 else "FOOD"])
    app = atom_only(server) if args.atom_only else server
    httpd = make_server("127.0.0.1", args.port, app, handler_class=QuietHandler)
    print("pyslet_v2_service: http://127.0.0.1:%d/shop" % args.port, file=sys.stderr, flush=True)
    httpd.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
