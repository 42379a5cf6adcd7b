package io.rdmaverbs.spring.boot.autoconfigure.messaging;

import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

import io.rdmaverbs.spring.boot.messaging.RdmaEndpoint;
import io.rdmaverbs.spring.boot.messaging.RdmaMessageMapping;
import io.rdmaverbs.verbs.ClosePolicy;
import io.rdmaverbs.verbs.MemoryRegion;
import io.rdmaverbs.verbs.attr.AccessFlag;
import io.rdmaverbs.verbs.attr.RemoteAccess;
import io.rdmaverbs.verbs.connection.RemoteKey;
import io.rdmaverbs.verbs.connection.Session;

/**
 * The endpoints of the listener {@code tables} the one-sided tests talk to: each export is a 4 KiB region of
 * the connection that asked, its text at offset 0; the last one is kept for the test to look into.
 */
@RdmaEndpoint("tables")
class TableEndpoint {

    static final Set<AccessFlag> REGISTERED = EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_READ,
            AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_ATOMIC);

    final AtomicReference<MemoryRegion> last = new AtomicReference<>();

    /** Every access, returned as a key: the remote-key content type. */
    @RdmaMessageMapping("open")
    RemoteKey open(String text, Session session) {
        return session.export(table(text, session), EnumSet.allOf(RemoteAccess.class));
    }

    /** READ only, returned as the key's bytes: octet-stream, which the template reads as a key too. */
    @RdmaMessageMapping("open-read-only")
    byte[] openReadOnly(String text, Session session) {
        return session.export(table(text, session), EnumSet.of(RemoteAccess.READ)).toByteArray();
    }

    @RdmaMessageMapping("revoke")
    void revoke(RemoteKey key, Session session) {
        session.revoke(key);
    }

    /** Closes the last region: a cascade close revokes its export first. */
    @RdmaMessageMapping("drop")
    void drop() {
        last.get().close(ClosePolicy.CASCADE);
    }

    private MemoryRegion table(String text, Session session) {
        MemoryRegion table = session.connection().allocateMemory(4096, REGISTERED);
        table.segment().setString(0, text);
        last.set(table);
        return table;
    }
}
