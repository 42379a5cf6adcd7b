package io.rdmaverbs.verbs;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import io.rdmaverbs.verbs.StuckReference.Cause;
import io.rdmaverbs.verbs.StuckReference.Consequence;
import io.rdmaverbs.verbs.attr.RemoteAccess;
import io.rdmaverbs.verbs.attr.SendOpcode;

import org.jspecify.annotations.Nullable;

/**
 * A handle on memory a connection's peer exported to this side: RDMA READ, WRITE, compare-and-swap and
 * fetch-and-add through the connection's QP, each a future. A graph resource under that QP, so it closes
 * with the connection; it is also closed when the peer revokes the export, and then every call throws
 * {@link ResourceClosedException} saying so ("revoked by the peer at ...").
 *
 * <p>Everything the peer would refuse is refused here first, before anything is posted: an offset and
 * length outside the export, an atomic on a word that is not 8-byte aligned, an operation the export does
 * not allow. The peer's refusal would be an {@code IBV_WC_REM_ACCESS_ERR} that moves both QPs to the error
 * state and ends the connection; the local refusal leaves the connection as it was.
 *
 * <p>No native object: the handle is the peer's address, length and rkey, and the {@link Path} that posts
 * operations with them; closing it forgets it ({@code (forget)}). A close does not wait for operations in
 * flight (they complete or fail on their own); {@link #awaitIdle} does.
 */
public final class RemoteRegion extends VerbsResource {

    /**
     * The peer's exported memory.
     *
     * @param holder who exported it, as reports name it (the connection and its peer)
     * @param exportId the peer's number for the export
     * @param address the address of its first byte in the peer's memory
     * @param length its length in bytes
     * @param rkey the peer region's rkey (valid on this connection's QP only)
     * @param access what the peer allows
     */
    public record Target(String holder, long exportId, long address, long length, int rkey,
            Set<RemoteAccess> access) {

        public Target {
            Objects.requireNonNull(holder, "holder");
            access = Collections.unmodifiableSet(EnumSet.copyOf(access));
            if (length < 1) {
                throw new IllegalArgumentException("an exported region has at least 1 byte, got " + length);
            }
        }
    }

    /**
     * Posts a handle's operations, once its checks passed; implemented by the connection that holds the QP.
     * Each future completes when the operation's completion is polled, and the destination or source segment
     * is free for the caller again from then on.
     */
    public interface Path {

        CompletableFuture<Void> read(RemoteRegion region, long remoteAddress, MemorySegment destination);

        CompletableFuture<Void> write(RemoteRegion region, long remoteAddress, MemorySegment source);

        /** ATOMIC_CMP_AND_SWP or ATOMIC_FETCH_AND_ADD on the 8 bytes at {@code remoteAddress}: the old value. */
        CompletableFuture<Long> atomic(RemoteRegion region, SendOpcode opcode, long remoteAddress, long compareAdd,
                long swap);
    }

    private final QueuePair qp;
    private final Target target;
    private final Path path;
    private final Object idle = new Object();
    /** Operations posted whose futures have not completed; guarded by {@link #idle}. */
    private int inFlight;

    RemoteRegion(QueuePair qp, Target target, Path path, @Nullable String name) {
        super(qp.verbs, ResourceKind.REMOTE_REGION, List.of(qp), name);
        this.qp = qp;
        this.target = target;
        this.path = path;
    }

    @Override
    public DeviceContext context() {
        return qp.context();
    }

    public QueuePair queuePair() {
        return qp;
    }

    public Target target() {
        return target;
    }

    /** The exported length: offsets go from 0 to this. */
    public long length() {
        return target.length();
    }

    public Set<RemoteAccess> access() {
        return target.access();
    }

    // ---- operations -------------------------------------------------------------------------------

    /** RDMA READ of {@code destination.byteSize()} bytes at {@code offset} of the export into {@code destination}. */
    public CompletableFuture<Void> read(long offset, MemorySegment destination) {
        Objects.requireNonNull(destination, "destination");
        check(RemoteAccess.READ, "an RDMA READ", offset, destination.byteSize());
        return tracked(() -> path.read(this, target.address() + offset, destination));
    }

    /** RDMA WRITE of {@code source} to {@code offset} of the export. */
    public CompletableFuture<Void> write(long offset, MemorySegment source) {
        Objects.requireNonNull(source, "source");
        check(RemoteAccess.WRITE, "an RDMA WRITE", offset, source.byteSize());
        return tracked(() -> path.write(this, target.address() + offset, source));
    }

    /**
     * Replaces the 8 bytes at {@code offset} with {@code swap} if they hold {@code expect}; completes with what
     * they held. The word is read in the peer's byte order (the device's: host order on rxe).
     */
    public CompletableFuture<Long> compareAndSwap(long offset, long expect, long swap) {
        checkAtomic(offset, "a compare-and-swap");
        return tracked(() -> path.atomic(this, SendOpcode.ATOMIC_CMP_AND_SWP, target.address() + offset, expect,
                swap));
    }

    /** Adds {@code add} to the 8 bytes at {@code offset}; completes with what they held before. */
    public CompletableFuture<Long> fetchAndAdd(long offset, long add) {
        checkAtomic(offset, "a fetch-and-add");
        return tracked(() -> path.atomic(this, SendOpcode.ATOMIC_FETCH_AND_ADD, target.address() + offset, add, 0));
    }

    private void checkAtomic(long offset, String what) {
        check(RemoteAccess.ATOMIC, what, offset, 8);
        if (((target.address() + offset) & 7) != 0) {
            throw new IllegalArgumentException(ref() + ": " + what + " at offset " + offset + ((offset & 7) != 0
                    ? " is not on an 8-byte boundary"
                    : " is on address 0x" + Long.toHexString(target.address() + offset) + " of the peer, which is not "
                            + "8-byte aligned (the export starts at 0x" + Long.toHexString(target.address()) + ")")
                    + ": atomics need an aligned 64-bit word; refused before posting");
        }
    }

    /** The checks the peer's responder would make, made here so that misuse never reaches the wire. */
    private void check(RemoteAccess needed, String what, long offset, long bytes) {
        checkOpen();
        if (!target.access().contains(needed)) {
            throw new UnsupportedOperationException(ref() + " was exported for " + target.access() + " only: "
                    + what + " needs " + needed + "; refused before posting (the peer would answer "
                    + "IBV_WC_REM_ACCESS_ERR and the connection would break)");
        }
        if (bytes < 1) {
            throw new IllegalArgumentException(ref() + ": " + what + " of 0 bytes");
        }
        if (offset < 0 || offset > target.length() - bytes) {
            throw new IllegalArgumentException(ref() + ": " + what + " of " + bytes + " bytes at offset " + offset
                    + " is outside the " + target.length() + " bytes exported; refused before posting (the peer "
                    + "would answer IBV_WC_REM_ACCESS_ERR and the connection would break)");
        }
    }

    /**
     * Posts inside the resource, so that once a close has begun nothing more is posted, and counts the
     * operation in flight until its future completes. The caller gets a dependent stage: completing it does
     * not end the count.
     */
    private <T> CompletableFuture<T> tracked(Supplier<CompletableFuture<T>> operation) {
        enter();
        try {
            synchronized (idle) {
                inFlight++;
            }
            CompletableFuture<T> posted;
            try {
                posted = operation.get();
            } catch (RuntimeException | Error e) {
                completed();
                throw e;
            }
            return posted.whenComplete((v, e) -> completed());
        } finally {
            exit();
        }
    }

    private void completed() {
        synchronized (idle) {
            inFlight--;
            if (inFlight == 0) {
                idle.notifyAll();
            }
        }
    }

    /** Operations posted and not yet completed. */
    public int operationsInFlight() {
        synchronized (idle) {
            return inFlight;
        }
    }

    /**
     * Waits up to {@code timeout} until no operation through this handle is in flight (open or closed);
     * whether none is. A revocation waits so before it lets the peer deregister the memory.
     */
    public boolean awaitIdle(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (idle) {
            while (inFlight > 0) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                try {
                    idle.wait(Math.max(1, left / 1_000_000));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
            return true;
        }
    }

    /**
     * Closes the handle, recording why: every later call throws {@link ResourceClosedException} with
     * {@code because} ("revoked by the peer at ..."). Idempotent; operations in flight go on.
     */
    public void forget(String because) {
        Objects.requireNonNull(because, "because");
        Teardown.under(ClosePolicy.CASCADE).close(this, because);
    }

    // ---- the graph --------------------------------------------------------------------------------

    @Override
    public Map<String, Object> details() {
        Map<String, Object> m = new Details();
        m.put("holder", target.holder());
        m.put("exportId", target.exportId());
        m.put("length", target.length());
        m.put("rkey", "0x" + Integer.toHexString(target.rkey()));
        m.put("access", target.access().toString());
        m.put("qp", qp.name());
        m.put("inFlight", operationsInFlight());
        return m;
    }

    /** Destroying the QP does not fail, but takes the handle from under whoever uses it. */
    @Override
    Hold holdOn(VerbsResource parent) {
        return new Hold(Cause.REMOTE_REGION, "is the path of " + ref() + " to export " + target.exportId() + " of "
                + target.holder(), Consequence.BREAKS_LEASE, null, "would succeed, but close that handle under its "
                        + "users");
    }

    /** Nothing native: the peer's rkey is only ever named in work requests. */
    @Override
    void release() {
    }
}
