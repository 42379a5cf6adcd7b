package io.rdmaverbs.verbs.scenario;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;

import io.rdmaverbs.verbs.CompletionQueue;
import io.rdmaverbs.verbs.DeviceContext;
import io.rdmaverbs.verbs.QueuePair;
import io.rdmaverbs.verbs.attr.WorkCompletions;
import io.rdmaverbs.verbs.attr.AccessFlag;
import io.rdmaverbs.verbs.attr.AddressVector;
import io.rdmaverbs.verbs.attr.LinkLayer;
import io.rdmaverbs.verbs.attr.Mtu;
import io.rdmaverbs.verbs.attr.PortAttributes;
import io.rdmaverbs.verbs.attr.QpCapabilities;

import static org.assertj.core.api.Assertions.assertThat;

/** Building blocks the scenarios share: addressing a port, connecting QPs, waiting for completions. */
public final class Fixtures {

    public static final int PORT = 1;
    public static final Set<AccessFlag> LOCAL = EnumSet.of(AccessFlag.LOCAL_WRITE);
    public static final Set<AccessFlag> REMOTE = EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE,
            AccessFlag.REMOTE_READ);
    public static final QpCapabilities CAPS = new QpCapabilities(16, 16, 1, 1, 0);

    private Fixtures() {
    }

    /**
     * The address of {@code port} itself: on RoCE (soft-RoCE included) its GID at index 0, the IPv6
     * link-local one; on InfiniBand its LID.
     */
    public static AddressVector selfAddress(DeviceContext ctx) {
        PortAttributes port = ctx.queryPort(PORT);
        if (port.linkLayer() == LinkLayer.INFINIBAND) {
            return AddressVector.infiniband(PORT, port.lid());
        }
        return AddressVector.roce(PORT, ctx.queryGid(PORT, 0), 0);
    }

    public static Mtu pathMtu(DeviceContext ctx) {
        Mtu active = ctx.queryPort(PORT).activeMtu();
        return active.value() < Mtu.MTU_1024.value() ? active : Mtu.MTU_1024;
    }

    /** Connects two RC (or UC) QPs to each other through {@code path}: RESET→INIT→RTR→RTS. */
    public static void connect(QueuePair a, QueuePair b, AddressVector path, Mtu mtu) {
        connect(a, b, path, mtu, REMOTE);
    }

    /** {@link #connect(QueuePair, QueuePair, AddressVector, Mtu)} with {@code access} as the QPs' remote access. */
    public static void connect(QueuePair a, QueuePair b, AddressVector path, Mtu mtu, Set<AccessFlag> access) {
        a.toInit(PORT, access);
        b.toInit(PORT, access);
        a.toReadyToReceive(path, b.qpNum(), 0, mtu);
        b.toReadyToReceive(path, a.qpNum(), 0, mtu);
        a.toReadyToSend(0);
        b.toReadyToSend(0);
    }

    /** Polls {@code cq} until {@code expected} completions arrived (or fails after {@code timeout}). */
    public static int pollFor(CompletionQueue cq, WorkCompletions wc, int expected, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        int n = 0;
        while (n < expected && System.nanoTime() < deadline) {
            int got = cq.poll(wc);
            n += got;
            if (got == 0) {
                Thread.onSpinWait();
            }
        }
        assertThat(n).as("completions on %s within %s", cq, timeout).isEqualTo(expected);
        return n;
    }

    /** Fills {@code length} bytes of {@code segment} with a recognisable pattern. */
    public static void pattern(MemorySegment segment, int length, int seed) {
        for (int i = 0; i < length; i++) {
            segment.set(java.lang.foreign.ValueLayout.JAVA_BYTE, i, (byte) (seed + i * 7));
        }
    }
}
