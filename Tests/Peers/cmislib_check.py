#!/usr/bin/env python3
"""Drives cmislib 0.7.0 against a running `satchel serve` and checks every result.

    cmislib_check.py URL USER PASSWORD atom|browser [REPOSITORY]

Prints one line per check ("ok <name>" or "FAIL <name>: <why>") and exits 1 when any check failed, so the
Swift test that runs it can show exactly what went wrong. Uses a folder of its own and removes it at the end.
"""
import io
import sys
import time
import traceback

from cmislib import CmisClient

failures = []


def check(name, condition, detail=""):
    if condition:
        print(f"ok {name}")
    else:
        print(f"FAIL {name}: {detail}")
        failures.append(name)


def step(name, function):
    try:
        return function()
    except Exception as error:  # noqa: BLE001 - report everything cmislib raises
        print(f"FAIL {name}: {type(error).__name__}: {error}")
        traceback.print_exc(file=sys.stdout)
        failures.append(name)
        return None


def repository(client, binding, repository_id):
    """The repository with this id.

    cmislib 0.7.0's own getRepository(id) builds it with the wrong parent object (every later call then fails with
    "'RepositoryService' object has no attribute 'binding'"), and its getDefaultRepository() takes the first
    workspace over AtomPub but the last repository over the Browser binding. So find it the way cmislib itself
    does, and build it with the client.
    """
    document = client.binding.get(client.repositoryUrl, client.session, **client.extArgs)
    if binding == "browser":
        from cmislib.browser.binding import BrowserRepository

        return BrowserRepository(client, document[repository_id])
    from cmislib.atompub.binding import APP_NS, CMIS_NS, AtomPubRepository

    for workspace in document.getElementsByTagNameNS(APP_NS, "workspace"):
        ids = workspace.getElementsByTagNameNS(CMIS_NS, "repositoryId")
        if ids and ids[0].childNodes[0].data == repository_id:
            return AtomPubRepository(client, workspace)
    raise LookupError(f"no repository {repository_id}")


def main():
    url, user, password, binding = sys.argv[1:5]
    repository_id = sys.argv[5] if len(sys.argv) > 5 else "shared"
    kwargs = {}
    if binding == "browser":
        from cmislib.browser.binding import BrowserBinding

        kwargs["binding"] = BrowserBinding()
    client = CmisClient(url, user, password, **kwargs)

    repositories = step("repositories", client.getRepositories) or []
    ids = [r["repositoryId"] for r in repositories]
    check("repositories", repository_id in ids, f"got {ids}")
    repo = step("repository", lambda: repository(client, binding, repository_id))
    if repo is None:
        return
    info = step("repository info", repo.getRepositoryInfo) or {}
    check("repository info", info.get("repositoryId") == repository_id, f"got {info.get('repositoryId')}")
    capabilities = step("capabilities", repo.getCapabilities) or {}
    check("capabilities", len(capabilities) > 0, f"got {capabilities}")

    root = step("root folder", repo.getRootFolder)
    if root is None:
        return
    stamp = str(int(time.time() * 1000))
    folder_name = f"cmislib-{binding}-{stamp}"
    folder = step("create folder", lambda: root.createFolder(folder_name))
    if folder is None:
        return
    check("create folder", folder.getName() == folder_name, f"got {folder.getName()}")

    children = step("children", lambda: [c.getName() for c in root.getChildren()]) or []
    check("children", folder_name in children, f"{folder_name} not in {children[:20]}")

    body = ("hello from cmislib " + stamp).encode()
    doc = step(
        "create document",
        lambda: folder.createDocument("note.txt", contentFile=io.BytesIO(body), contentType="text/plain"),
    )
    if doc is not None:
        check("create document", doc.getName() == "note.txt", f"got {doc.getName()}")
        fetched = step("get document", lambda: repo.getObject(doc.getObjectId()))
        check("get document", fetched is not None and fetched.getName() == "note.txt")
        content = step("get content", lambda: doc.getContentStream().read())
        check("get content", content == body, f"got {content!r}")
        step("update properties", lambda: doc.updateProperties({"cmis:name": "renamed.txt"}))
        renamed = step("reload", lambda: repo.getObject(doc.getObjectId()))
        check("update properties", renamed is not None and renamed.getName() == "renamed.txt",
              f"got {renamed.getName() if renamed else None}")
        found = step("query", lambda: [r.getName() for r in repo.query(
            f"SELECT * FROM cmis:document WHERE cmis:name = 'renamed.txt' AND IN_FOLDER('{folder.getObjectId()}')")])
        check("query", found == ["renamed.txt"], f"got {found}")

        # Versioning: check out, check in a major version, list the versions.
        pwc = step("checkout", doc.checkout)
        if pwc is not None:
            check("checkout", pwc.getObjectId() != doc.getObjectId(), "the private working copy has the doc's id")
            new_version = step("checkin", lambda: pwc.checkin(checkinComment="from cmislib", major=True))
            versions = step("all versions", lambda: [v.getProperties().get("cmis:versionLabel")
                                                     for v in (new_version or doc).getAllVersions()]) or []
            check("all versions", len(versions) >= 2, f"got {versions}")
        step("delete document", lambda: repo.getObject(doc.getObjectId()).delete())
        gone = [c.getName() for c in folder.getChildren()]
        check("delete document", "renamed.txt" not in gone, f"still there: {gone}")

    step("delete tree", folder.deleteTree)
    remaining = [c.getName() for c in root.getChildren()]
    check("delete tree", folder_name not in remaining, f"{folder_name} still in root")


if __name__ == "__main__":
    main()
    print(f"{len(failures)} failed")
    sys.exit(1 if failures else 0)
