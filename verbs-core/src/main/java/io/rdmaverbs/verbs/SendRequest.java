package io.rdmaverbs.verbs;

import java.util.Objects;

import io.rdmaverbs.verbs.attr.SendFlag;
import io.rdmaverbs.verbs.attr.SendOpcode;
import io.rdmaverbs.verbs.provider.SendWr;

import org.jspecify.annotations.Nullable;

/**
 * A reusable send work request ({@code struct ibv_send_wr}), built once and posted many times with
 * {@link QueuePair#postSend}; posting allocates nothing. Scatter/gather entries name the
 * {@link MemoryRegion} they point into, so bounds are checked when set and a region closed since is
 * refused at post time, in Java. A request posted again unchanged to the same QP is checked only for what
 * can change without it (its regions and address handle closed, its memory freed): see {@link PostChecks}.
 * Not thread-safe: one request per posting thread.
 */
public final class SendRequest implements AutoCloseable {

    private final SendWr wr;
    private final @Nullable MemoryRegion[] regions;
    /** The entry count, as set on the provider's request: read by every post's checks, kept here in Java. */
    private int sges;
    /* The opcode and flags as set, kept in Java for the device-limit checks of every post. */
    private SendOpcode opcode = SendOpcode.SEND;
    private int sendFlags = SendFlag.SIGNALED;
    private @Nullable AddressHandle addressHandle;
    /** A request of a {@link SendBatch}: it lives and dies with its batch. */
    private final boolean inBatch;
    /** Its own, or its batch's: what the last check before a post found. */
    private final PostChecks checks;
    private boolean closed;

    SendRequest(SendWr wr) {
        this(wr, new PostChecks(), false);
    }

    /** A request of the batch whose {@code checks} these are. */
    SendRequest(SendWr wr, PostChecks checks) {
        this(wr, checks, true);
    }

    private SendRequest(SendWr wr, PostChecks checks, boolean inBatch) {
        this.wr = wr;
        this.checks = checks;
        this.inBatch = inBatch;
        this.regions = new MemoryRegion[wr.maxSge()];
        wr.opcode(SendOpcode.SEND);
        wr.flags(SendFlag.SIGNALED);
    }

    public SendRequest wrId(long id) {
        wr.wrId(id);
        return this;
    }

    public SendRequest opcode(SendOpcode opcode) {
        wr.opcode(Objects.requireNonNull(opcode, "opcode"));
        if (opcode != this.opcode) {
            checks.changed();
            this.opcode = opcode;
        }
        return this;
    }

    /** {@link SendFlag} bits; {@link SendFlag#SIGNALED} by default. */
    public SendRequest flags(int sendFlags) {
        wr.flags(sendFlags);
        if (sendFlags != this.sendFlags) {
            checks.changed();
        }
        this.sendFlags = sendFlags;
        return this;
    }

    /** Sets scatter/gather entry {@code index} to {@code length} bytes at {@code offset} of {@code region}. */
    public SendRequest segment(int index, MemoryRegion region, long offset, int length) {
        checkSegment(index, region, offset, length, regions.length);
        // The bounds are checked above; a post checks only the region, and the length where a limit reads it.
        boolean moved = region != regions[index];
        if (moved || isAtomic() || (sendFlags & SendFlag.INLINE) != 0) {
            checks.changed();
        }
        wr.sge(index, region.address() + offset, length, region.lkey());
        if (moved) {
            // A reference is stored only when it changes, here, in opcode, datagram and clear, and in the
            // entry setters of ReceiveRequest and WorkRequestBuilder: G1's write barrier fences (StoreLoad) a
            // store into an old object that points across heap regions, which cost a ring refill 10-16 ns per
            // request once tenured, Intel Xeon (docs/performance.md, section 6).
            regions[index] = region;
        }
        return this;
    }

    /** How many entries (from 0) the request carries. */
    public SendRequest segments(int count) {
        if (count < 0 || count > regions.length) {
            throw new IllegalArgumentException("this request has room for 0.." + regions.length + " entries, asked for "
                    + count);
        }
        if (count != sges) {
            checks.changed();
        }
        wr.sgeCount(count);
        sges = count;
        return this;
    }

    /** One entry: {@code length} bytes at {@code offset} of {@code region}. */
    public SendRequest single(MemoryRegion region, long offset, int length) {
        return segment(0, region, offset, length).segments(1);
    }

    /** Immediate data, host byte order (the provider sends it in network order). */
    public SendRequest immediateData(int imm) {
        wr.immediateData(imm);
        return this;
    }

    /** The remote buffer of an RDMA write or read. */
    public SendRequest remote(long remoteAddress, int rkey) {
        if (isAtomic()) {
            // An atomic's remote address is checked for alignment.
            checks.changed();
        }
        wr.rdma(remoteAddress, rkey);
        return this;
    }

    /**
     * The remote 8 bytes and operands of an atomic ({@link SendOpcode#ATOMIC_FETCH_AND_ADD} adds
     * {@code compareAdd}; {@link SendOpcode#ATOMIC_CMP_AND_SWP} writes {@code swap} where it finds
     * {@code compareAdd}). The original value lands in this request's first entry.
     */
    public SendRequest atomic(long remoteAddress, int rkey, long compareAdd, long swap) {
        checks.changed();
        wr.atomic(remoteAddress, rkey, compareAdd, swap);
        return this;
    }

    /** The destination of a UD send. */
    public SendRequest datagram(AddressHandle ah, int remoteQpn, int remoteQkey) {
        Objects.requireNonNull(ah, "ah");
        ah.checkOpen();
        boolean changed = ah != addressHandle;
        if (changed) {
            checks.changed();
        }
        wr.datagram(ah.handle, remoteQpn, remoteQkey);
        if (changed) {
            this.addressHandle = ah;
        }
        return this;
    }

    /** The remote XRC SRQ an XRC send goes to. */
    public SendRequest xrcRemoteSrqNum(int srqNum) {
        wr.xrcRemoteSrqNum(srqNum);
        return this;
    }

    public long wrId() {
        return wr.wrId();
    }

    /** Resets everything to a signaled SEND with no entries. */
    public SendRequest clear() {
        checks.changed();
        wr.clear();
        wr.opcode(SendOpcode.SEND);
        wr.flags(SendFlag.SIGNALED);
        if (opcode != SendOpcode.SEND) {
            opcode = SendOpcode.SEND;
        }
        sendFlags = SendFlag.SIGNALED;
        java.util.Arrays.fill(regions, null);
        sges = 0;
        addressHandle = null;
        return this;
    }

    SendWr wr() {
        return wr;
    }

    /**
     * Refuses, in Java, a request whose regions or address handle were closed or belong elsewhere, or that
     * exceeds a limit of {@code qp} or its device ({@link #checkDeviceLimits}).
     */
    void checkPostable(QueuePair qp) {
        if (closed) {
            throw new IllegalStateException("this send request was closed");
        }
        if (checks.due(qp)) {
            checkPostable(qp.context(), null);
            checkDeviceLimits(qp);
            checks.passed(qp);
        }
    }

    /**
     * The checks of a request of a batch (whose batch checked it is open, and found a full check of its
     * {@link PostChecks} {@linkplain PostChecks#due due}): {@code checked} is the region the request before it
     * ended with, which is not checked again (the requests of a batch mostly point into one region, and a post
     * checks it once). Returns the region to pass to the next.
     */
    @Nullable MemoryRegion checkPostable(DeviceContext context, @Nullable MemoryRegion checked) {
        checked = checkRegions(regions, sges, context, checked, checks);
        AddressHandle ah = addressHandle;
        if (ah != null) {
            ah.checkOpen();
            if (ah.context() != context) {
                throw new IllegalArgumentException(ah.ref() + " belongs to another device context");
            }
            checks.found(ah);
        }
        return checked;
    }

    /**
     * The first {@code count} regions are set, open, alive and of {@code context}; {@code checked} was checked.
     * Each region checked is {@linkplain PostChecks#found found} for {@code checks}.
     */
    static @Nullable MemoryRegion checkRegions(@Nullable MemoryRegion[] regions, int count, DeviceContext context,
            @Nullable MemoryRegion checked, PostChecks checks) {
        for (int i = 0; i < count; i++) {
            MemoryRegion r = regions[i];
            if (r == null) {
                throw new IllegalStateException("scatter/gather entry " + i + " was not set");
            }
            if (r != checked) {
                checkRegion(r, context);
                checks.found(r);
                checked = r;
            }
        }
        return checked;
    }

    /**
     * The device limits a provider would refuse the request for, checked in Java with the attribute
     * named: an atomic on a device whose {@code atomic_cap} is {@code IBV_ATOMIC_NONE}, an atomic whose
     * local buffer is under 8 bytes or whose remote address is not 8-byte aligned (rxe's
     * {@code validate_send_wr}, the InfiniBand rule for 64-bit atomics), and inline data beyond the QP's
     * {@code max_inline_data} ({@code ibv_post_send(3)}: {@code IBV_SEND_INLINE}).
     */
    void checkDeviceLimits(QueuePair qp) {
        if (isAtomic()) {
            checkAtomic(qp);
        }
        if ((sendFlags & SendFlag.INLINE) != 0) {
            long length = length();
            int max = qp.capabilities().maxInlineData();
            if (length > max) {
                throw new IllegalArgumentException(qp.ref() + " sends at most " + max + " bytes inline "
                        + "(max_inline_data granted at create); this IBV_SEND_INLINE request carries " + length);
            }
        }
    }

    private boolean isAtomic() {
        return opcode == SendOpcode.ATOMIC_FETCH_AND_ADD || opcode == SendOpcode.ATOMIC_CMP_AND_SWP;
    }

    private void checkAtomic(QueuePair qp) {
        DeviceContext context = qp.context();
        if (!context.attributes().supportsAtomics()) {
            throw new IllegalArgumentException(opcode + " refused: device " + context.device().name()
                    + " reports atomic_cap " + context.attributes().atomicCap() + " (IBV_ATOMIC_NONE), it executes no "
                    + "atomic work requests");
        }
        if (length() < 8) {
            throw new IllegalArgumentException(opcode + " returns the original 8 bytes into its scatter/gather "
                    + "list, which holds " + length() + ": give it an 8-byte entry");
        }
        if ((wr.remoteAddress() & 7) != 0) {
            throw new IllegalArgumentException(opcode + " on remote address 0x" + Long.toHexString(wr.remoteAddress())
                    + ": atomics operate on 8-byte aligned 64-bit words");
        }
    }

    private long length() {
        long total = 0;
        for (int i = 0; i < sges; i++) {
            total += Integer.toUnsignedLong(wr.sgeLength(i));
        }
        return total;
    }

    static void checkRegion(MemoryRegion r, DeviceContext context) {
        r.checkOpen();
        r.checkMemoryAlive();
        if (r.context() != context) {
            throw new IllegalArgumentException(r.ref() + " is registered on another device context");
        }
    }

    static void checkSegment(int index, MemoryRegion region, long offset, int length, int capacity) {
        Objects.requireNonNull(region, "region");
        if (index < 0 || index >= capacity) {
            throw new IndexOutOfBoundsException("entry " + index + " of a request with room for " + capacity);
        }
        if (offset < 0 || length < 0 || offset + length > region.length()) {
            throw new IndexOutOfBoundsException("bytes " + offset + ".." + (offset + length) + " are outside "
                    + region.ref() + " (" + region.length() + " bytes)");
        }
        region.checkOpen();
    }

    /** Closing the batch closes its requests, each alone cannot be. */
    void closeWithBatch() {
        closed = true;
    }

    /** Frees the request's native memory. Idempotent. A request of a batch is closed with its batch. */
    @Override
    public void close() {
        if (inBatch) {
            throw new IllegalStateException("this send request belongs to a batch: close the batch");
        }
        if (!closed) {
            closed = true;
            wr.close();
        }
    }
}
