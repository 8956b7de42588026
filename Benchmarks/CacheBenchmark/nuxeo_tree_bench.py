#!/usr/bin/env python3
"""The Python baselines of the cache benchmark: the same tree listed by Nuxeo's own client (nuxeo 7.1.0, the same
NXQL query SatchelCache's Nuxeo source sends, pages of 1,000) and by cmislib 0.7.0 (the folder tree walked over the
Browser binding, pages of 1,000). Neither keeps anything: this is the floor of "reading the tree" in Python.

    nuxeo_tree_bench.py nuxeo|cmis SERVER_URL USER PASSWORD ROOT RUNS

Prints one JSON line: seconds per run, documents and folders counted, peak RSS.
"""
import json
import os
import resource
import sys
import time

PAGE_SIZE = 1000


def nuxeo_run(url, user, password, root):
    from nuxeo.client import Nuxeo

    nuxeo = Nuxeo(host=url + "/nuxeo/", auth=(user, password))
    documents = folders = 0
    index = 0
    query = "SELECT * FROM Document WHERE ecm:path STARTSWITH '%s'" % root.replace("'", "\\'")
    while True:
        page = nuxeo.client.query(query, params={"pageSize": PAGE_SIZE, "currentPageIndex": index})
        for entry in page["entries"]:
            if "Folderish" in entry.get("facets", []):
                folders += 1
            else:
                documents += 1
        if not page.get("isNextPageAvailable") or not page["entries"]:
            break
        index += 1
    return documents, folders


def cmis_run(url, user, password, root):
    from cmislib import CmisClient
    from cmislib.browser.binding import BrowserBinding

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Tests", "Peers"))
    from cmislib_check import repository

    repo = repository(CmisClient(url + "/cmis/browser", user, password, binding=BrowserBinding()), "browser", "shared")
    pending = [repo.getObjectByPath(root)]
    documents = folders = 0
    while pending:
        folder = pending.pop(0)
        skip = 0
        while True:
            page = folder.getChildren(maxItems=PAGE_SIZE, skipCount=skip)
            results = page.getResults()
            items = list(results.values()) if isinstance(results, dict) else list(results)
            for child in items:
                if child.getProperties().get("cmis:baseTypeId") == "cmis:folder":
                    folders += 1
                    pending.append(child)
                else:
                    documents += 1
            if not items or not page.hasNext():
                break
            skip += len(items)
    return documents, folders


def main():
    kind, url, user, password, root, runs = sys.argv[1:7]
    seconds = []
    documents = folders = 0
    for _ in range(int(runs)):
        start = time.perf_counter()
        documents, folders = (nuxeo_run if kind == "nuxeo" else cmis_run)(url, user, password, root)
        seconds.append(time.perf_counter() - start)
    print(json.dumps({
        "seconds": seconds, "documents": documents, "folders": folders,
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }))


if __name__ == "__main__":
    main()
