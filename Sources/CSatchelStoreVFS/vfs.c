// The page-encrypting VFS: see include/CSatchelStoreVFS.h and docs/store-format.md.
#include "CSatchelStoreVFS.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#define ROUND8(n) (((n) + 7) & ~7)
#define WAL_FRAME_HEADER 24

static sqlite3_vfs satchelVFS;
static sqlite3_vfs *wrapped;
static satchel_vfs_cipher cipher;
static int pageSize;
static int reserveBytes;
static pthread_mutex_t installLock = PTHREAD_MUTEX_INITIALIZER;

// MARK: - Encrypted files

typedef struct EncryptedFile EncryptedFile;

/// The encrypted database files open now: a journal or WAL takes the cipher of its open database file, so it is
/// never written in the clear while its database is open encrypted (even if the store's registration has ended).
static EncryptedFile *openDatabases;
static pthread_mutex_t openDatabasesLock = PTHREAD_MUTEX_INITIALIZER;

struct EncryptedFile {
    sqlite3_file base;
    sqlite3_file *real;  // the wrapped VFS's file, right after this struct
    void *context;
    int kind;
    unsigned char *scratch;  // one page and a WAL frame header
    const char *name;        // database files: SQLite's name for the file (valid while it is open)
    EncryptedFile *next;     // database files: the next in openDatabases
};

/// The context of the open encrypted database file named `name`, retained; NULL when there is none.
static void *openDatabaseContext(const char *name) {
    void *context = NULL;
    pthread_mutex_lock(&openDatabasesLock);
    for (EncryptedFile *file = openDatabases; file != NULL; file = file->next) {
        if (strcmp(file->name, name) == 0) {
            context = file->context;
            cipher.retainAgain(context);
            break;
        }
    }
    pthread_mutex_unlock(&openDatabasesLock);
    return context;
}

static void forgetOpenDatabase(EncryptedFile *p) {
    pthread_mutex_lock(&openDatabasesLock);
    for (EncryptedFile **link = &openDatabases; *link != NULL; link = &(*link)->next) {
        if (*link == p) {
            *link = p->next;
            break;
        }
    }
    pthread_mutex_unlock(&openDatabasesLock);
}

static int isZero(const unsigned char *bytes, int count) {
    for (int i = 0; i < count; i++) {
        if (bytes[i] != 0) return 0;
    }
    return 1;
}

static int encClose(sqlite3_file *file) {
    EncryptedFile *p = (EncryptedFile *)file;
    if (p->kind == SATCHEL_VFS_DATABASE) forgetOpenDatabase(p);
    int rc = p->real->pMethods ? p->real->pMethods->xClose(p->real) : SQLITE_OK;
    if (p->context) cipher.release(p->context);
    p->context = NULL;
    sqlite3_free(p->scratch);
    p->scratch = NULL;
    return rc;
}

/// Opens `page` read at `location`; a failed page becomes zeros so nothing sealed reaches SQLite as data.
static int openPage(EncryptedFile *p, unsigned char *page, long long location) {
    if (cipher.open(p->context, p->kind, page, pageSize, location) != 0) {
        memset(page, 0, (size_t)pageSize);
        return SQLITE_IOERR_DATA;
    }
    return SQLITE_OK;
}

static int encRead(sqlite3_file *file, void *buffer, int amount, sqlite3_int64 offset) {
    EncryptedFile *p = (EncryptedFile *)file;
    unsigned char *bytes = buffer;
    sqlite3_file *real = p->real;
    switch (p->kind) {
    case SATCHEL_VFS_DATABASE: {
        if (amount == pageSize && offset % pageSize == 0) {
            int rc = real->pMethods->xRead(real, buffer, amount, offset);
            if (rc == SQLITE_IOERR_SHORT_READ) {
                // Past the end: zeros. Part of a page: the file was cut inside it.
                return isZero(bytes, amount) ? rc : (memset(bytes, 0, (size_t)amount), SQLITE_IOERR_DATA);
            }
            if (rc != SQLITE_OK) return rc;
            return openPage(p, bytes, offset / pageSize + 1);
        }
        // Part of one page (the header SQLite reads at open): read and open the whole page.
        sqlite3_int64 start = offset - offset % pageSize;
        if (offset - start + amount > pageSize) return SQLITE_IOERR_READ;
        int rc = real->pMethods->xRead(real, p->scratch, pageSize, start);
        if (rc == SQLITE_IOERR_SHORT_READ) {
            memset(buffer, 0, (size_t)amount);
            return isZero(p->scratch, pageSize) ? rc : SQLITE_IOERR_DATA;
        }
        if (rc != SQLITE_OK) return rc;
        rc = openPage(p, p->scratch, start / pageSize + 1);
        if (rc != SQLITE_OK && start == 0) {
            // Page 1 torn by a crash: SQLite reads its header before replaying a hot journal or opening the WAL,
            // either of which restores the page. An empty header lets it get that far; reading the whole page
            // afterwards still fails if nothing restored it.
            memset(buffer, 0, (size_t)amount);
            return SQLITE_IOERR_SHORT_READ;
        }
        memcpy(buffer, p->scratch + (offset - start), (size_t)amount);
        return rc;
    }
    case SATCHEL_VFS_JOURNAL: {
        // Headers and record fields are at most a sector (512 bytes); page images are whole pages.
        if (amount > 512 && amount != pageSize) return SQLITE_IOERR_READ;
        int rc = real->pMethods->xRead(real, buffer, amount, offset);
        if (rc != SQLITE_OK || amount != pageSize) return rc;
        if (cipher.open(p->context, p->kind, bytes, pageSize, offset) != 0) {
            // A record torn by a crash (or changed): SQLite ends a rollback at a short read, as it does at a
            // record whose checksum fails.
            memset(bytes, 0, (size_t)pageSize);
            return SQLITE_IOERR_SHORT_READ;
        }
        return SQLITE_OK;
    }
    case SATCHEL_VFS_WAL: {
        // The WAL header (32 bytes, or 8 of it), a page, or a whole frame: nothing else may be read as data.
        if (amount != 32 && amount != 8 && amount != pageSize && amount != pageSize + WAL_FRAME_HEADER) {
            return SQLITE_IOERR_READ;
        }
        int rc = real->pMethods->xRead(real, buffer, amount, offset);
        if (rc != SQLITE_OK) return rc;
        if (amount == 32 && offset == 0) {
            // A header declaring another page size would make SQLite read frames this VFS does not open: such a
            // WAL is treated as empty (an all-zero header is invalid).
            int declared = (bytes[8] << 24) | (bytes[9] << 16) | (bytes[10] << 8) | bytes[11];
            if (declared != pageSize) memset(bytes, 0, 32);
            return SQLITE_OK;
        }
        if (amount == pageSize) return openPage(p, bytes, offset);
        if (amount == pageSize + WAL_FRAME_HEADER) {
            // A whole frame: WAL recovery, which stops at the first frame whose checksum fails (the frame being
            // written when a process died). A frame that does not open becomes random bytes, so its checksum
            // fails as a torn frame's would, and no crafted checksum can make SQLite accept it.
            unsigned char *frame = bytes + WAL_FRAME_HEADER;
            if (cipher.open(p->context, p->kind, frame, pageSize, offset + WAL_FRAME_HEADER) != 0) {
                sqlite3_randomness(pageSize, frame);
            }
        }
        return SQLITE_OK;
    }
    default:
        return SQLITE_IOERR_READ;
    }
}

/// Seals a copy of `page` and writes it at `offset`. A page whose reserved bytes are not zero is refused: it comes
/// from a database without the reserve (a backup from a plaintext database), and sealing would overwrite its data.
static int writeSealed(EncryptedFile *p, const void *page, sqlite3_int64 offset, long long location) {
    if (!isZero((const unsigned char *)page + pageSize - reserveBytes, reserveBytes)) return SQLITE_IOERR_WRITE;
    memcpy(p->scratch, page, (size_t)pageSize);
    if (cipher.seal(p->context, p->kind, p->scratch, pageSize, location) != 0) return SQLITE_IOERR_WRITE;
    return p->real->pMethods->xWrite(p->real, p->scratch, pageSize, offset);
}

static int encWrite(sqlite3_file *file, const void *buffer, int amount, sqlite3_int64 offset) {
    EncryptedFile *p = (EncryptedFile *)file;
    const unsigned char *bytes = buffer;
    switch (p->kind) {
    case SATCHEL_VFS_DATABASE: {
        // Only whole pages reach the database file; page 1 only when its header keeps the cipher's reserve.
        if (amount != pageSize || offset % pageSize != 0) return SQLITE_IOERR_WRITE;
        if (offset == 0) {
            int declared = (bytes[16] << 8) | bytes[17];
            if (declared == 1) declared = 65536;
            if (declared != pageSize || bytes[20] < reserveBytes) return SQLITE_IOERR_WRITE;
        }
        return writeSealed(p, buffer, offset, offset / pageSize + 1);
    }
    case SATCHEL_VFS_JOURNAL:
        if (amount == pageSize) return writeSealed(p, buffer, offset, offset);
        if (amount > 512) return SQLITE_IOERR_WRITE;
        return p->real->pMethods->xWrite(p->real, buffer, amount, offset);
    case SATCHEL_VFS_WAL:
        if (amount == pageSize) return writeSealed(p, buffer, offset, offset);
        if (amount == 32 || amount == WAL_FRAME_HEADER) {
            return p->real->pMethods->xWrite(p->real, buffer, amount, offset);
        }
        return SQLITE_IOERR_WRITE;
    default:
        return SQLITE_IOERR_WRITE;
    }
}

static int encTruncate(sqlite3_file *file, sqlite3_int64 size) {
    sqlite3_file *real = ((EncryptedFile *)file)->real;
    return real->pMethods->xTruncate(real, size);
}

static int encSync(sqlite3_file *file, int flags) {
    sqlite3_file *real = ((EncryptedFile *)file)->real;
    return real->pMethods->xSync(real, flags);
}

static int encFileSize(sqlite3_file *file, sqlite3_int64 *size) {
    sqlite3_file *real = ((EncryptedFile *)file)->real;
    return real->pMethods->xFileSize(real, size);
}

static int encLock(sqlite3_file *file, int level) {
    sqlite3_file *real = ((EncryptedFile *)file)->real;
    return real->pMethods->xLock(real, level);
}

static int encUnlock(sqlite3_file *file, int level) {
    sqlite3_file *real = ((EncryptedFile *)file)->real;
    return real->pMethods->xUnlock(real, level);
}

static int encCheckReservedLock(sqlite3_file *file, int *result) {
    sqlite3_file *real = ((EncryptedFile *)file)->real;
    return real->pMethods->xCheckReservedLock(real, result);
}

static int encFileControl(sqlite3_file *file, int op, void *argument) {
    sqlite3_file *real = ((EncryptedFile *)file)->real;
    if (op == SQLITE_FCNTL_MMAP_SIZE) {
        // Mapped pages would bypass decryption: the map size stays 0.
        if (argument) *(sqlite3_int64 *)argument = 0;
        return SQLITE_OK;
    }
    return real->pMethods->xFileControl(real, op, argument);
}

static int encSectorSize(sqlite3_file *file) {
    (void)file;
    // Keeps rollback-journal headers (one sector) smaller than a page, so only page images are page-sized.
    return 512;
}

static int encDeviceCharacteristics(sqlite3_file *file) {
    sqlite3_file *real = ((EncryptedFile *)file)->real;
    int flags = real->pMethods->xDeviceCharacteristics(real);
    flags &= ~(SQLITE_IOCAP_ATOMIC | SQLITE_IOCAP_ATOMIC512 | SQLITE_IOCAP_ATOMIC1K | SQLITE_IOCAP_ATOMIC2K
               | SQLITE_IOCAP_ATOMIC4K | SQLITE_IOCAP_ATOMIC8K | SQLITE_IOCAP_ATOMIC16K | SQLITE_IOCAP_ATOMIC32K
               | SQLITE_IOCAP_ATOMIC64K | SQLITE_IOCAP_BATCH_ATOMIC | SQLITE_IOCAP_SAFE_APPEND);
    // (Without SAFE_APPEND a rollback journal's record count is written only after its records are synced, so
    // SQLite never reads a torn page image, which would not open.)
    // WAL frames are then never padded or split at a sector boundary: each page is written whole.
    return flags | SQLITE_IOCAP_POWERSAFE_OVERWRITE;
}

static int encShmMap(sqlite3_file *file, int region, int size, int extend, void volatile **pointer) {
    sqlite3_file *real = ((EncryptedFile *)file)->real;
    return real->pMethods->xShmMap(real, region, size, extend, pointer);
}

static int encShmLock(sqlite3_file *file, int offset, int count, int flags) {
    sqlite3_file *real = ((EncryptedFile *)file)->real;
    return real->pMethods->xShmLock(real, offset, count, flags);
}

static void encShmBarrier(sqlite3_file *file) {
    sqlite3_file *real = ((EncryptedFile *)file)->real;
    real->pMethods->xShmBarrier(real);
}

static int encShmUnmap(sqlite3_file *file, int deleteFlag) {
    sqlite3_file *real = ((EncryptedFile *)file)->real;
    return real->pMethods->xShmUnmap(real, deleteFlag);
}

// Version 2: no xFetch, so SQLite never maps these files.
static const sqlite3_io_methods encryptedMethods = {
    2, encClose, encRead, encWrite, encTruncate, encSync, encFileSize, encLock, encUnlock, encCheckReservedLock,
    encFileControl, encSectorSize, encDeviceCharacteristics, encShmMap, encShmLock, encShmBarrier, encShmUnmap,
    NULL, NULL,
};

// MARK: - Memory files (temporary files)

typedef struct MemoryFile {
    sqlite3_file base;
    unsigned char *data;
    sqlite3_int64 size;
    sqlite3_int64 capacity;
} MemoryFile;

static int memClose(sqlite3_file *file) {
    MemoryFile *p = (MemoryFile *)file;
    sqlite3_free(p->data);
    p->data = NULL;
    p->size = p->capacity = 0;
    return SQLITE_OK;
}

static int memRead(sqlite3_file *file, void *buffer, int amount, sqlite3_int64 offset) {
    MemoryFile *p = (MemoryFile *)file;
    if (offset >= p->size) {
        memset(buffer, 0, (size_t)amount);
        return SQLITE_IOERR_SHORT_READ;
    }
    sqlite3_int64 available = p->size - offset;
    if (available >= amount) {
        memcpy(buffer, p->data + offset, (size_t)amount);
        return SQLITE_OK;
    }
    memcpy(buffer, p->data + offset, (size_t)available);
    memset((unsigned char *)buffer + available, 0, (size_t)(amount - available));
    return SQLITE_IOERR_SHORT_READ;
}

static int memReserve(MemoryFile *p, sqlite3_int64 size) {
    if (size <= p->capacity) return SQLITE_OK;
    sqlite3_int64 capacity = p->capacity ? p->capacity : 65536;
    while (capacity < size) capacity *= 2;
    unsigned char *data = sqlite3_realloc64(p->data, (sqlite3_uint64)capacity);
    if (!data) return SQLITE_IOERR_NOMEM;
    memset(data + p->capacity, 0, (size_t)(capacity - p->capacity));
    p->data = data;
    p->capacity = capacity;
    return SQLITE_OK;
}

static int memWrite(sqlite3_file *file, const void *buffer, int amount, sqlite3_int64 offset) {
    MemoryFile *p = (MemoryFile *)file;
    int rc = memReserve(p, offset + amount);
    if (rc != SQLITE_OK) return rc;
    memcpy(p->data + offset, buffer, (size_t)amount);
    if (offset + amount > p->size) p->size = offset + amount;
    return SQLITE_OK;
}

static int memTruncate(sqlite3_file *file, sqlite3_int64 size) {
    MemoryFile *p = (MemoryFile *)file;
    if (size < p->size) {
        memset(p->data + size, 0, (size_t)(p->size - size));
        p->size = size;
    }
    return SQLITE_OK;
}

static int memSync(sqlite3_file *file, int flags) {
    (void)file;
    (void)flags;
    return SQLITE_OK;
}

static int memFileSize(sqlite3_file *file, sqlite3_int64 *size) {
    *size = ((MemoryFile *)file)->size;
    return SQLITE_OK;
}

static int memLock(sqlite3_file *file, int level) {
    (void)file;
    (void)level;
    return SQLITE_OK;
}

static int memCheckReservedLock(sqlite3_file *file, int *result) {
    (void)file;
    *result = 0;
    return SQLITE_OK;
}

static int memFileControl(sqlite3_file *file, int op, void *argument) {
    (void)file;
    (void)op;
    (void)argument;
    return SQLITE_NOTFOUND;
}

static int memSectorSize(sqlite3_file *file) {
    (void)file;
    return 512;
}

static int memDeviceCharacteristics(sqlite3_file *file) {
    (void)file;
    return SQLITE_IOCAP_POWERSAFE_OVERWRITE | SQLITE_IOCAP_SAFE_APPEND | SQLITE_IOCAP_SEQUENTIAL;
}

static const sqlite3_io_methods memoryMethods = {
    1, memClose, memRead, memWrite, memTruncate, memSync, memFileSize, memLock, memLock, memCheckReservedLock,
    memFileControl, memSectorSize, memDeviceCharacteristics, NULL, NULL, NULL, NULL, NULL, NULL,
};

// MARK: - The VFS

static int vfsOpen(sqlite3_vfs *vfs, sqlite3_filename name, sqlite3_file *file, int flags, int *outFlags) {
    (void)vfs;
    int temporary = SQLITE_OPEN_TEMP_DB | SQLITE_OPEN_TEMP_JOURNAL | SQLITE_OPEN_SUBJOURNAL
                    | SQLITE_OPEN_TRANSIENT_DB;
    if (name == NULL || (flags & temporary) != 0) {
        MemoryFile *p = (MemoryFile *)file;
        memset(p, 0, sizeof(*p));
        p->base.pMethods = &memoryMethods;
        if (outFlags) *outFlags = flags;
        return SQLITE_OK;
    }
    int kind = -1;
    const char *database = NULL;
    if (flags & SQLITE_OPEN_MAIN_DB) {
        kind = SATCHEL_VFS_DATABASE;
        database = name;
    } else if (flags & SQLITE_OPEN_MAIN_JOURNAL) {
        kind = SATCHEL_VFS_JOURNAL;
        database = sqlite3_filename_database(name);
    } else if (flags & SQLITE_OPEN_WAL) {
        kind = SATCHEL_VFS_WAL;
        database = sqlite3_filename_database(name);
    }
    void *context = NULL;
    if (kind > SATCHEL_VFS_DATABASE && database != NULL) context = openDatabaseContext(database);
    if (context == NULL && kind >= 0 && database != NULL) context = cipher.retain(database);
    if (context == NULL) {
        // Not a registered database: the wrapped VFS's own file, its methods called directly.
        return wrapped->xOpen(wrapped, name, file, flags, outFlags);
    }
    EncryptedFile *p = (EncryptedFile *)file;
    memset(p, 0, sizeof(*p));
    p->real = (sqlite3_file *)((char *)file + ROUND8(sizeof(EncryptedFile)));
    p->real->pMethods = NULL;
    p->context = context;
    p->kind = kind;
    p->scratch = sqlite3_malloc(pageSize + WAL_FRAME_HEADER);
    if (p->scratch == NULL) {
        cipher.release(context);
        return SQLITE_NOMEM;
    }
    int rc = wrapped->xOpen(wrapped, name, p->real, flags, outFlags);
    if (rc != SQLITE_OK) {
        if (p->real->pMethods) p->real->pMethods->xClose(p->real);
        cipher.release(context);
        sqlite3_free(p->scratch);
        p->base.pMethods = NULL;
        return rc;
    }
    p->base.pMethods = &encryptedMethods;
    if (kind == SATCHEL_VFS_DATABASE) {
        p->name = name;
        pthread_mutex_lock(&openDatabasesLock);
        p->next = openDatabases;
        openDatabases = p;
        pthread_mutex_unlock(&openDatabasesLock);
    }
    return SQLITE_OK;
}

static int vfsDelete(sqlite3_vfs *vfs, const char *name, int syncDirectory) {
    (void)vfs;
    return wrapped->xDelete(wrapped, name, syncDirectory);
}

static int vfsAccess(sqlite3_vfs *vfs, const char *name, int flags, int *result) {
    (void)vfs;
    return wrapped->xAccess(wrapped, name, flags, result);
}

static int vfsFullPathname(sqlite3_vfs *vfs, const char *name, int size, char *out) {
    (void)vfs;
    return wrapped->xFullPathname(wrapped, name, size, out);
}

static void *vfsDlOpen(sqlite3_vfs *vfs, const char *name) {
    (void)vfs;
    return wrapped->xDlOpen(wrapped, name);
}

static void vfsDlError(sqlite3_vfs *vfs, int size, char *message) {
    (void)vfs;
    wrapped->xDlError(wrapped, size, message);
}

static void (*vfsDlSym(sqlite3_vfs *vfs, void *handle, const char *symbol))(void) {
    (void)vfs;
    return wrapped->xDlSym(wrapped, handle, symbol);
}

static void vfsDlClose(sqlite3_vfs *vfs, void *handle) {
    (void)vfs;
    wrapped->xDlClose(wrapped, handle);
}

static int vfsRandomness(sqlite3_vfs *vfs, int size, char *out) {
    (void)vfs;
    return wrapped->xRandomness(wrapped, size, out);
}

static int vfsSleep(sqlite3_vfs *vfs, int microseconds) {
    (void)vfs;
    return wrapped->xSleep(wrapped, microseconds);
}

static int vfsCurrentTime(sqlite3_vfs *vfs, double *now) {
    (void)vfs;
    return wrapped->xCurrentTime(wrapped, now);
}

static int vfsGetLastError(sqlite3_vfs *vfs, int size, char *message) {
    (void)vfs;
    return wrapped->xGetLastError ? wrapped->xGetLastError(wrapped, size, message) : 0;
}

static int vfsCurrentTimeInt64(sqlite3_vfs *vfs, sqlite3_int64 *now) {
    (void)vfs;
    return wrapped->xCurrentTimeInt64(wrapped, now);
}

int satchel_vfs_install(const satchel_vfs_cipher *pageCipher, int size, int reserve) {
    pthread_mutex_lock(&installLock);
    if (wrapped != NULL) {
        int rc = (size == pageSize && reserve == reserveBytes) ? SQLITE_OK : SQLITE_MISUSE;
        pthread_mutex_unlock(&installLock);
        return rc;
    }
    int rc = sqlite3_initialize();
    sqlite3_vfs *current = rc == SQLITE_OK ? sqlite3_vfs_find(NULL) : NULL;
    if (current == NULL || current->iVersion < 2) {
        pthread_mutex_unlock(&installLock);
        return rc == SQLITE_OK ? SQLITE_ERROR : rc;
    }
    cipher = *pageCipher;
    pageSize = size;
    reserveBytes = reserve;
    int fileSize = ROUND8((int)sizeof(EncryptedFile)) + current->szOsFile;
    if (fileSize < (int)sizeof(MemoryFile)) fileSize = (int)sizeof(MemoryFile);
    memset(&satchelVFS, 0, sizeof(satchelVFS));
    satchelVFS.iVersion = 2;
    satchelVFS.szOsFile = fileSize;
    satchelVFS.mxPathname = current->mxPathname;
    satchelVFS.zName = "satchel-store";
    satchelVFS.xOpen = vfsOpen;
    satchelVFS.xDelete = vfsDelete;
    satchelVFS.xAccess = vfsAccess;
    satchelVFS.xFullPathname = vfsFullPathname;
    satchelVFS.xDlOpen = vfsDlOpen;
    satchelVFS.xDlError = vfsDlError;
    satchelVFS.xDlSym = vfsDlSym;
    satchelVFS.xDlClose = vfsDlClose;
    satchelVFS.xRandomness = vfsRandomness;
    satchelVFS.xSleep = vfsSleep;
    satchelVFS.xCurrentTime = vfsCurrentTime;
    satchelVFS.xGetLastError = vfsGetLastError;
    satchelVFS.xCurrentTimeInt64 = vfsCurrentTimeInt64;
    wrapped = current;
    rc = sqlite3_vfs_register(&satchelVFS, 1);
    if (rc != SQLITE_OK) wrapped = NULL;
    pthread_mutex_unlock(&installLock);
    return rc;
}

int satchel_vfs_full_path(const char *path, char *out, int size) {
    sqlite3_vfs *vfs = wrapped ? wrapped : sqlite3_vfs_find(NULL);
    if (vfs == NULL) return SQLITE_ERROR;
    return vfs->xFullPathname(vfs, path, size, out);
}

int satchel_vfs_request_reserve(void *connection, int reserve) {
    return sqlite3_file_control((sqlite3 *)connection, "main", SQLITE_FCNTL_RESERVE_BYTES, &reserve);
}
