#!/usr/bin/env python3
"""cmislib 0.7.0 side of the CMIS client benchmark: the same two jobs as Satchel's client, same server, same binding.

    cmislib_bench.py URL USER PASSWORD atom|browser REPOSITORY FOLDER_ID IDS_FILE RUNS

Job 1 lists every child of FOLDER_ID (10,000 documents); job 2 fetches the properties of each id in IDS_FILE
(1,000 documents, one getObject each). Prints one JSON line: seconds per run for each job, items counted, and
this process's peak RSS.
"""
import json
import os
import resource
import sys
import time

from cmislib import CmisClient

# cmislib 0.7.0's getRepository(id) is broken; the peer check builds the repository the way cmislib itself does.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Tests", "Peers"))
from cmislib_check import repository  # noqa: E402

PAGE_SIZE = 1000  # the Satchel side pages the same way


def main():
    url, user, password, binding, repository_id, folder_id, ids_file, runs = sys.argv[1:9]
    kwargs = {}
    if binding == "browser":
        from cmislib.browser.binding import BrowserBinding

        kwargs["binding"] = BrowserBinding()
    repo = repository(CmisClient(url, user, password, **kwargs), binding, repository_id)
    ids = [line.strip() for line in open(ids_file) if line.strip()]
    folder = repo.getObject(folder_id)

    list_seconds, fetch_seconds = [], []
    listed = fetched = 0
    for _ in range(int(runs)):
        start = time.perf_counter()
        listed = 0
        skip = 0
        while True:  # explicit skipCount paging: cmislib's Browser-binding getNext() is not implemented
            page = folder.getChildren(maxItems=PAGE_SIZE, skipCount=skip)
            results = page.getResults()
            items = list(results.values()) if isinstance(results, dict) else list(results)
            listed += sum(1 for child in items if child.getName())
            if not items or not page.hasNext():
                break
            skip += len(items)
        list_seconds.append(time.perf_counter() - start)

        start = time.perf_counter()
        fetched = 0
        for object_id in ids:
            fetched += 1 if repo.getObject(object_id).getProperties().get("cmis:name") else 0
        fetch_seconds.append(time.perf_counter() - start)

    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({
        "list_seconds": list_seconds, "listed": listed,
        "fetch_seconds": fetch_seconds, "fetched": fetched,
        "peak_rss_mib": round(peak_kib / 1024, 1),
    }))


if __name__ == "__main__":
    main()
