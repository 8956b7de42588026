"""Nuxeo's own Python client (nuxeo 7.1.0) against satchel serve's Nuxeo REST API.

    python nuxeo_check.py SERVER_URL USER PASSWORD      # SERVER_URL: http://127.0.0.1:PORT/nuxeo/

Every step asserts what the client reports; prints "ok <step>" or "FAIL <step>", then "<n> failed".
"""

import os
import sys
import tempfile
import traceback

from nuxeo.auth import TokenAuth
from nuxeo.client import Nuxeo
from nuxeo.exceptions import HTTPError
from nuxeo.models import Document, FileBlob


def main(url, user, password):
    nuxeo = Nuxeo(host=url, auth=(user, password))
    state = {}
    failed = 0

    def step(name, body):
        nonlocal failed
        try:
            body()
            print("ok", name)
        except Exception as error:  # noqa: BLE001 - every failure is reported and counted
            failed += 1
            print("FAIL", name, repr(error))
            traceback.print_exc()

    def current_user():
        me = nuxeo.users.current_user()
        assert me.uid == user, me.uid
        assert me.properties["username"] == user, me.properties
        info = nuxeo.client.server_info(force=True)
        assert info and info["productName"], info

    def permissions():
        uid = state["folder"].uid
        nuxeo.documents.add_permission(uid, {"permission": "ReadWrite", "username": "bob"})
        local = [acl for acl in nuxeo.documents.fetch_acls(uid) if acl["name"] == "local"][0]
        assert any(ace["username"] == "bob" and ace["permission"] == "ReadWrite" for ace in local["aces"]), local
        nuxeo.documents.remove_permission(uid, {"user": "bob"})
        local = [acl for acl in nuxeo.documents.fetch_acls(uid) if acl["name"] == "local"][0]
        assert not any(ace["username"] == "bob" for ace in local["aces"]), local

    def move():
        moved = nuxeo.documents.create(
            Document(name="to-move", type="Note", properties={"dc:title": "to-move"}), parent_path="/py-folder")
        target = nuxeo.documents.create(
            Document(name="py-target", type="Folder", properties={"dc:title": "py-target"}), parent_path="/")
        nuxeo.documents.move(moved.uid, "/py-target")
        assert nuxeo.documents.get(uid=moved.uid).path == "/py-target/to-move"
        nuxeo.documents.delete(target.uid)

    def locks():
        doc = nuxeo.documents.create(
            Document(name="to-lock", type="Note", properties={"dc:title": "to-lock"}), parent_path="/py-folder")
        assert not doc.is_locked()
        doc.lock()
        assert doc.is_locked()
        assert doc.fetch_lock_status()["lockOwner"] == user
        try:
            doc.lock()
            raise AssertionError("a locked document was locked again")
        except HTTPError as error:
            assert error.status == 409, error.status
        doc.unlock()
        assert not doc.is_locked()
        # A list input (docs:): the operation runs on each document.
        other = nuxeo.documents.create(
            Document(name="to-lock-2", type="Note", properties={"dc:title": "to-lock-2"}), parent_path="/py-folder")
        locked = nuxeo.operations.execute(command="Document.Lock", input_obj=[doc.uid, other.uid])
        assert sorted(entry["uid"] for entry in locked["entries"]) == sorted([doc.uid, other.uid]), locked
        assert doc.is_locked() and other.is_locked()
        nuxeo.operations.execute(command="Document.Unlock", input_obj=[doc.uid, other.uid])
        assert not doc.is_locked() and not other.is_locked()

    def trash():
        doc = nuxeo.documents.create(
            Document(name="to-trash", type="Note", properties={"dc:title": "to-trash"}), parent_path="/py-folder")
        doc.trash()
        assert doc.isTrashed, doc.isTrashed
        live = nuxeo.documents.query(
            opts={"query": f"SELECT * FROM Document WHERE ecm:parentId = '{state['folder'].uid}' AND ecm:isTrashed = 0"})
        assert doc.uid not in [entry.uid for entry in live["entries"]], live
        assert doc.uid not in [child.uid for child in nuxeo.documents.get_children(path="/py-folder")]
        doc.untrash()
        assert not doc.isTrashed
        assert doc.uid in [child.uid for child in nuxeo.documents.get_children(path="/py-folder")]

    def has_permission():
        folder = nuxeo.documents.get(path="/py-folder")
        assert folder.has_permission("Write")
        assert folder.has_permission("Read")
        assert not folder.has_permission("NoSuchPermission")

    def root():
        document = nuxeo.documents.get(path="/")
        assert document.type == "Folder", document.type

    def create_folder():
        folder = nuxeo.documents.create(
            Document(name="py-folder", type="Folder", properties={"dc:title": "py-folder"}), parent_path="/")
        assert folder.path == "/py-folder", folder.path
        assert folder.uid, "no uid"
        state["folder"] = folder

    def create_documents():
        for index in range(3):
            created = nuxeo.documents.create(
                Document(name=f"py-{index}.txt", type="File", properties={"dc:title": f"py-{index}.txt"}),
                parent_path="/py-folder")
            assert created.path == f"/py-folder/py-{index}.txt", created.path

    def get_by_path_and_uid():
        by_path = nuxeo.documents.get(path="/py-folder/py-1.txt")
        by_uid = nuxeo.documents.get(uid=by_path.uid)
        assert by_uid.path == by_path.path and by_uid.title == "py-1.txt", (by_uid.path, by_uid.title)

    def children():
        titles = sorted(child.title for child in nuxeo.documents.get_children(path="/py-folder"))
        assert titles == ["py-0.txt", "py-1.txt", "py-2.txt"], titles

    def query():
        uid = state["folder"].uid
        first = nuxeo.documents.query(
            {"query": f"SELECT * FROM Document WHERE ecm:parentId = '{uid}' ORDER BY dc:title", "pageSize": 2})
        assert [entry.title for entry in first["entries"]] == ["py-0.txt", "py-1.txt"], first["entries"]
        assert first["isNextPageAvailable"], first
        second = nuxeo.documents.query(
            {"query": f"SELECT * FROM Document WHERE ecm:parentId = '{uid}' ORDER BY dc:title", "pageSize": 2,
             "currentPageIndex": 1})
        assert [entry.title for entry in second["entries"]] == ["py-2.txt"], second["entries"]

    def update():
        document = nuxeo.documents.get(path="/py-folder/py-0.txt")
        document.properties["dc:title"] = "py-0 renamed"
        document.save()
        again = nuxeo.documents.get(uid=document.uid)
        # As on a Nuxeo server: the title changes, the name (the path's last segment) stays.
        assert again.title == "py-0 renamed" and again.path == "/py-folder/py-0.txt", (again.title, again.path)

    def missing():
        assert not nuxeo.documents.exists(path="/no/such/document")
        try:
            nuxeo.documents.get(path="/no/such/document")
            raise AssertionError("no error for a missing document")
        except HTTPError as error:
            assert error.status == 404, error.status

    def automation():
        fetched = nuxeo.operations.execute(command="Document.Fetch", params={"value": "/py-folder"})
        assert fetched["path"] == "/py-folder" and fetched["entity-type"] == "document", fetched
        uid = state["folder"].uid
        found = nuxeo.operations.execute(
            command="Repository.Query",
            params={"query": f"SELECT * FROM Document WHERE ecm:parentId = '{uid}' ORDER BY dc:title", "pageSize": 2})
        assert [entry["title"] for entry in found["entries"]] == ["py-0 renamed", "py-1.txt"], found["entries"]
        created = nuxeo.operations.execute(
            command="Document.Create", input_obj="doc:/py-folder",
            params={"type": "File", "name": "py-op.txt", "properties": {"dc:description": "by automation"}})
        assert created["path"] == "/py-folder/py-op.txt", created

    def upload():
        data = bytes(range(256)) * 4000  # 1,024,000 bytes
        with tempfile.TemporaryDirectory() as folder:
            large = os.path.join(folder, "py.bin")
            with open(large, "wb") as file:
                file.write(data)
            batch = nuxeo.uploads.batch()
            batch.upload(FileBlob(large, mimetype="application/octet-stream"), chunked=True, chunk_size=256 * 1024)
            batch.attach("/py-folder/py-1.txt")
            fetched = nuxeo.documents.fetch_blob(path="/py-folder/py-1.txt")
            assert fetched == data, f"{len(fetched)} bytes back"
            small = os.path.join(folder, "p.txt")
            with open(small, "wb") as file:
                file.write(b"plain text\n")
            plain = nuxeo.uploads.batch()
            plain.upload(FileBlob(small, mimetype="text/plain"))
            plain.attach("/py-folder/py-2.txt")
            assert nuxeo.documents.fetch_blob(path="/py-folder/py-2.txt") == b"plain text\n"
            # FileManager.Import: the uploaded file becomes a new document in the folder.
            batch = nuxeo.uploads.batch()
            uploaded = batch.upload(FileBlob(small, mimetype="text/plain"))
            imported = nuxeo.operations.execute(
                command="FileManager.Import", context={"currentDocument": "/py-folder"}, input_obj=uploaded)
            assert imported["path"] == "/py-folder/p.txt", imported
            assert nuxeo.documents.fetch_blob(path="/py-folder/p.txt") == b"plain text\n"

    def token():
        # A token bought with the password, then a client that sends only the token.
        token = Nuxeo(host=url, auth=(user, password)).client.request_auth_token(
            device_id="peer-check", permission="ReadWrite", app_name="nuxeo_check", device="the peer test")
        assert token and "\n" not in token, token
        by_token = Nuxeo(host=url, auth=TokenAuth(token))
        assert by_token.documents.get(path="/py-folder").uid == state["folder"].uid
        note = by_token.documents.create(
            Document(name="by-token", type="Note", properties={"dc:title": "by-token"}), parent_path="/py-folder")
        assert note.path == "/py-folder/by-token", note.path
        # Revoked: the token opens nothing any more.
        Nuxeo(host=url, auth=(user, password)).client.request_auth_token(
            device_id="peer-check", permission="ReadWrite", app_name="nuxeo_check", revoke=True)
        try:
            Nuxeo(host=url, auth=TokenAuth(token)).documents.get(path="/py-folder")
            raise AssertionError("a revoked token was accepted")
        except HTTPError as error:
            assert error.status == 401, error.status

    def delete():
        nuxeo.documents.delete(state["folder"].uid)
        assert not nuxeo.documents.exists(path="/py-folder")

    for name, body in [
        ("root", root), ("create folder", create_folder), ("create documents", create_documents),
        ("get by path and uid", get_by_path_and_uid), ("children", children), ("query with paging", query),
        ("update", update), ("missing document", missing), ("automation", automation), ("upload, plain and chunked", upload),
        ("token authentication", token), ("current user and server info", current_user),
        ("permissions", permissions), ("move", move), ("lock and unlock", locks), ("trash and untrash", trash),
        ("has permission", has_permission), ("delete", delete),
    ]:
        step(name, body)
    print(f"{failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
