package io.rdmaverbs.verbs.provider.ffm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import io.rdmaverbs.verbs.attr.QpCapabilities;
import io.rdmaverbs.verbs.attr.QpType;
import io.rdmaverbs.verbs.attr.SendOpcode;
import io.rdmaverbs.verbs.attr.WorkCompletions;
import io.rdmaverbs.verbs.provider.AddressHandleVerbs;
import io.rdmaverbs.verbs.provider.CompletionVerbs;
import io.rdmaverbs.verbs.provider.DomainVerbs;
import io.rdmaverbs.verbs.provider.MemoryRegionVerbs;
import io.rdmaverbs.verbs.provider.PdHandle;
import io.rdmaverbs.verbs.provider.QpHandle;
import io.rdmaverbs.verbs.provider.QueuePairVerbs;
import io.rdmaverbs.verbs.provider.SendWr;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Handles and buffers the provider must refuse before calling native code, where a foreign or freed
 * pointer would crash the JVM instead of failing. The handles here point into fake memory: reaching
 * libibverbs with them would be the bug.
 */
class HandleValidationTest {

    private final NativeVerbsProvider provider = NativeVerbsProvider.load();
    private final DomainVerbs domainVerbs = provider.domainVerbs();
    private final CompletionVerbs cqVerbs = provider.completionVerbs();
    private final QueuePairVerbs qpVerbs = provider.queuePairVerbs();
    private final MemoryRegionVerbs mrVerbs = provider.memoryRegionVerbs();
    private final AddressHandleVerbs ahVerbs = provider.addressHandleVerbs();
    private final Arena arena = Arena.ofConfined();
    private final FakeVerbsContext device = new FakeVerbsContext(arena);
    private final NativeContext context = device.handle(provider, "rxe0");

    @AfterEach
    void freeFakeDevice() {
        arena.close();
    }

    @Test
    void aHandleFromAnotherProviderIsRejectedBeforeAnyNativeCall() {
        PdHandle foreign = () -> "sim_pd#1";

        assertThatThrownBy(() -> domainVerbs.deallocPd(foreign))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("handle sim_pd#1 was not created by the native provider");
        assertThatThrownBy(() -> ahVerbs.destroyAh(() -> "sim_ah#2"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("handle sim_ah#2 was not created by the native provider");
    }

    @Test
    void aDestroyedHandleIsRejectedBeforeAnyNativeCall() {
        NativePd pd = new NativePd(provider, MemorySegment.ofAddress(0xdead_0000L), context);
        pd.markDestroyed();

        assertThatThrownBy(() -> domainVerbs.deallocPd(pd))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("ibv_pd@0xdead0000 was already destroyed");
        assertThatThrownBy(() -> mrVerbs.regMr(pd, arena.allocate(64), 1))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void handlesDescribeThemselvesByStructAndAddress() {
        NativePd pd = new NativePd(provider, MemorySegment.ofAddress(0x7f3a_1000_1230L), context);

        assertThat(pd.describe()).isEqualTo("ibv_pd@0x7f3a10001230");
    }

    @Test
    void registeringHeapMemoryIsRejectedBecauseTheDeviceCannotReachIt() {
        NativePd pd = new NativePd(provider, MemorySegment.ofAddress(0xdead_0000L), context);

        assertThatThrownBy(() -> mrVerbs.regMr(pd, MemorySegment.ofArray(new byte[64]), 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("off-heap")
                .hasMessageContaining("Arena");
    }

    @Test
    void closedWorkCompletionsAreRefusedByPollAndByTheirAccessors() {
        NativeCq cq = new NativeCq(provider, MemorySegment.ofAddress(0xc0_0000L), context, 16, null,
                MemorySegment.NULL, MemorySegment.NULL);
        WorkCompletions wc = cqVerbs.newWorkCompletions(8);
        wc.close();
        wc.close();

        assertThatThrownBy(() -> cqVerbs.pollCq(cq, wc, 8))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("already closed");
        assertThatThrownBy(() -> wc.wrId(0)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void pollingMoreThanTheBufferHoldsIsRefused() {
        NativeCq cq = new NativeCq(provider, MemorySegment.ofAddress(0xc0_0000L), context, 16, null,
                MemorySegment.NULL, MemorySegment.NULL);
        try (WorkCompletions wc = cqVerbs.newWorkCompletions(4)) {
            assertThatThrownBy(() -> cqVerbs.pollCq(cq, wc, 5))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("0..4");
        }
    }

    @Test
    void closedOrForeignWorkRequestsAreRefusedByPostAndClosedOnesByTheirSetters() {
        NativeQp qp = qp();
        SendWr closed = qpVerbs.newSendWr(1);
        closed.close();
        SendWr foreign = (SendWr) java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {SendWr.class}, (proxy, method, args) -> null);

        assertThatThrownBy(() -> qpVerbs.postSend(qp, closed))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("already closed");
        assertThatThrownBy(() -> closed.opcode(SendOpcode.SEND)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> qpVerbs.postSend(qp, foreign))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("newSendWr");
    }

    @Test
    void postingWithADestroyedAddressHandleIsRefused() {
        NativeQp qp = qp();
        NativePd pd = new NativePd(provider, MemorySegment.ofAddress(0x5000), context);
        NativeAh ah = new NativeAh(provider, MemorySegment.ofAddress(0xa400), pd);
        try (SendWr wr = qpVerbs.newSendWr(1)) {
            wr.datagram(ah, 1, 2);
            ah.markDestroyed();

            assertThatThrownBy(() -> qpVerbs.postSend(qp, wr))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessage("ibv_ah@0xa400 was already destroyed");
        }
    }

    @Test
    void sgeIndicesBeyondTheRequestsRoomAreRefused() {
        try (SendWr wr = qpVerbs.newSendWr(2)) {
            assertThatThrownBy(() -> wr.sge(2, 0, 0, 0)).isInstanceOf(IndexOutOfBoundsException.class);
            assertThatThrownBy(() -> wr.sgeCount(3)).isInstanceOf(IndexOutOfBoundsException.class);
        }
    }

    private NativeQp qp() {
        QpHandle handle = new NativeQp(provider, MemorySegment.ofAddress(0xb0_0000L), context, QpType.UD, 0x11,
                QpCapabilities.of(16, 16), QpCapabilities.of(16, 16), MemorySegment.NULL, MemorySegment.NULL);
        return (NativeQp) handle;
    }
}
