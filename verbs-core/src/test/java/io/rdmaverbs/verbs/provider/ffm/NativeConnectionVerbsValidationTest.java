package io.rdmaverbs.verbs.provider.ffm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

import io.rdmaverbs.verbs.attr.QpCapabilities;
import io.rdmaverbs.verbs.attr.QpType;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.error.VerbsException;
import io.rdmaverbs.verbs.provider.CmChannelHandle;
import io.rdmaverbs.verbs.attr.CmConnectionParams;
import io.rdmaverbs.verbs.provider.CmIdHandle;
import io.rdmaverbs.verbs.attr.CmPortSpace;
import io.rdmaverbs.verbs.provider.ConnectionVerbs;
import io.rdmaverbs.verbs.provider.ProviderUnavailableException;
import io.rdmaverbs.verbs.provider.QpInitSpec;
import io.rdmaverbs.verbs.provider.simulated.DeviceProfile;
import io.rdmaverbs.verbs.provider.simulated.SimulatedProvider;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What {@link NativeConnectionVerbs} refuses before librdmacm sees it, runnable without the rdma_ucm
 * kernel module: the ids, channels and events here point into fake memory (an id's fields are zeroed
 * {@code rdma_cm_id} memory), so reaching librdmacm with them would crash the JVM rather than fail.
 */
class NativeConnectionVerbsValidationTest {

    private static final InetSocketAddress ANY = new InetSocketAddress(InetAddress.getLoopbackAddress(), 7471);
    private static final Duration SECOND = Duration.ofSeconds(1);

    private final NativeVerbsProvider provider = NativeVerbsProvider.load();
    private final ConnectionVerbs verbs = new NativeConnectionVerbs(provider, RdmaCm.load(),
            (NativeDeviceVerbs) provider.deviceVerbs(), (NativeQpVerbs) provider.queuePairVerbs());
    private final Arena arena = Arena.ofConfined();
    private final NativeCmChannel channel = new NativeCmChannel(provider, arena.allocate(RdmaEventChannel.LAYOUT), -1,
            WakeDescriptor.NONE);

    @AfterEach
    void freeFakeMemory() {
        arena.close();
    }

    private NativeCmId fakeId(CmPortSpace portSpace) {
        MemorySegment id = arena.allocate(RdmaCmId.LAYOUT);
        RdmaCmId.PS.set(id, portSpace == CmPortSpace.TCP ? RdmaCmId.RDMA_PS_TCP : RdmaCmId.RDMA_PS_UDP);
        return new NativeCmId(provider, id, channel, portSpace);
    }

    private NativeCmEvent fakeEvent(RdmaCmEventType type, NativeCmId id, NativeCmId listener) {
        CmEvent event = new CmEvent(arena.allocate(RdmaCmEvent.LAYOUT), type, 0, id.pointer(),
                listener == null ? MemorySegment.NULL : listener.pointer(), Optional.empty());
        return new NativeCmEvent(provider, event, id, listener);
    }

    /** Every verb that takes an id, called on {@code id}. */
    private List<Consumer<CmIdHandle>> everyIdVerb() {
        QpInitSpec rc = new QpInitSpec(QpType.RC, null, null, null, null, null, QpCapabilities.of(4, 4), false);
        return List.of(
                verbs::destroyId,
                id -> verbs.bindAddr(id, ANY),
                id -> verbs.resolveAddr(id, null, ANY, SECOND),
                id -> verbs.resolveRoute(id, SECOND),
                id -> verbs.listen(id, 8),
                id -> verbs.connect(id, CmConnectionParams.defaults()),
                id -> verbs.accept(id, CmConnectionParams.defaults()),
                id -> verbs.reject(id, new byte[0]),
                verbs::disconnect,
                id -> verbs.createQp(id, rc),
                verbs::destroyQp,
                verbs::context,
                verbs::qp,
                verbs::localAddress,
                verbs::peerAddress);
    }

    @Test
    void anIdOrChannelOfAnotherProviderIsRejectedByEveryVerbBeforeLibrdmacmSeesIt() {
        ConnectionVerbs simulated = SimulatedProvider.of(DeviceProfile.rxe("rxe0")).connectionVerbs();
        CmChannelHandle foreignChannel = simulated.createEventChannel();
        CmIdHandle foreignId = simulated.createId(foreignChannel, CmPortSpace.TCP);

        for (Consumer<CmIdHandle> verb : everyIdVerb()) {
            assertThatThrownBy(() -> verb.accept(foreignId)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("was not created by the native provider");
        }
        assertThatThrownBy(() -> verbs.createId(foreignChannel, CmPortSpace.TCP))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> verbs.getEvent(foreignChannel, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> verbs.awaitEventReady(foreignChannel, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> verbs.destroyEventChannel(foreignChannel))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> verbs.wakeEventWaiters(foreignChannel)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aDestroyedIdIsRejectedByEveryVerbBeforeLibrdmacmSeesIt() {
        NativeCmId id = fakeId(CmPortSpace.TCP);
        id.markDestroyed();

        for (Consumer<CmIdHandle> verb : everyIdVerb()) {
            assertThatThrownBy(() -> verb.accept(id)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("rdma_cm_id@0x").hasMessageContaining("was already destroyed");
        }
    }

    @Test
    void aDestroyedChannelTakesNoIdsAndGivesNoEvents() {
        channel.markDestroyed();

        assertThatThrownBy(() -> verbs.createId(channel, CmPortSpace.TCP)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("rdma_event_channel@0x");
        assertThatThrownBy(() -> verbs.getEvent(channel, 0)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> verbs.awaitEventReady(channel, 0)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("rdma_event_channel@0x");
        assertThatThrownBy(() -> verbs.destroyEventChannel(channel)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void nullArgumentsAreRejectedNamingTheArgument() {
        NativeCmId id = fakeId(CmPortSpace.TCP);

        assertThatThrownBy(() -> verbs.destroyId(null)).isInstanceOf(NullPointerException.class).hasMessage("id");
        assertThatThrownBy(() -> verbs.getEvent(null, 0)).isInstanceOf(NullPointerException.class)
                .hasMessage("channel");
        assertThatThrownBy(() -> verbs.awaitEventReady(null, 0)).isInstanceOf(NullPointerException.class)
                .hasMessage("channel");
        assertThatThrownBy(() -> verbs.createId(channel, null)).isInstanceOf(NullPointerException.class)
                .hasMessage("portSpace");
        assertThatThrownBy(() -> verbs.bindAddr(id, null)).isInstanceOf(NullPointerException.class)
                .hasMessage("address");
        assertThatThrownBy(() -> verbs.resolveAddr(id, null, null, SECOND)).isInstanceOf(NullPointerException.class)
                .hasMessage("destination");
        assertThatThrownBy(() -> verbs.connect(id, null)).isInstanceOf(NullPointerException.class)
                .hasMessage("params");
        assertThatThrownBy(() -> verbs.reject(id, null)).isInstanceOf(NullPointerException.class)
                .hasMessage("privateData");
        assertThatThrownBy(() -> verbs.ackEvent(null)).isInstanceOf(NullPointerException.class).hasMessage("event");
    }

    /**
     * The wait polls the channel's descriptor and its wake eventfd and reads neither librdmacm nor the
     * descriptor: an eventfd stands in for the channel's, readable once written as when the kernel queues
     * a CM event, so no rdma_ucm is needed.
     */
    @Test
    void awaitEventReadyPollsTheChannelDescriptorWithoutReadingItAndAWakeEndsTheWait() throws Exception {
        MemorySegment state = CallState.current();
        WakeDescriptor events = WakeDescriptor.open(state, "the channel descriptor's stand-in");
        WakeDescriptor wake = WakeDescriptor.open(state, "the channel's wake descriptor");
        NativeCmChannel readable = new NativeCmChannel(provider, arena.allocate(RdmaEventChannel.LAYOUT), events.fd(),
                wake);
        try {
            long start = System.nanoTime();
            assertThat(verbs.awaitEventReady(readable, 50)).as("nothing to read").isFalse();
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(50));

            events.wake();
            assertThat(verbs.awaitEventReady(readable, 1000)).isTrue();
            assertThat(verbs.awaitEventReady(readable, 0)).as("nothing was read: still readable").isTrue();
            events.drain(state);

            Thread waker = Thread.ofPlatform().start(() -> {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
                verbs.wakeEventWaiters(readable);
            });
            start = System.nanoTime();
            assertThat(verbs.awaitEventReady(readable, 30_000)).as("woken").isFalse();
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
            waker.join();
        } finally {
            events.close();
            wake.close();
        }
    }

    @Test
    void resolutionTimeoutsMustBePositive() {
        NativeCmId id = fakeId(CmPortSpace.TCP);

        assertThatThrownBy(() -> verbs.resolveAddr(id, null, ANY, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("timeout must be positive");
        assertThatThrownBy(() -> verbs.resolveRoute(id, Duration.ofMillis(-5)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("timeout must be positive");
    }

    @Test
    void anUnresolvedHostNameIsRefusedBeforeBinding() {
        NativeCmId id = fakeId(CmPortSpace.TCP);

        assertThatThrownBy(() -> verbs.bindAddr(id, InetSocketAddress.createUnresolved("rdma-peer", 7471)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unresolved");
    }

    @Test
    void destroyIdIsRefusedWhileAnEventOfTheIdIsUnacknowledgedBecauseLibrdmacmWouldBlockForever() {
        NativeCmId id = fakeId(CmPortSpace.TCP);
        NativeCmEvent established = fakeEvent(RdmaCmEventType.ESTABLISHED, id, null);
        id.hold(established);

        assertThatThrownBy(() -> verbs.destroyId(id)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("rdma_destroy_id(rdma_cm_id@0x").hasMessageContaining("RDMA_PS_TCP")
                .hasMessageContaining("would block forever").hasMessageContaining(established.describe());
        assertThat(id.isDestroyed()).as("the id is still usable").isFalse();
    }

    @Test
    void destroyIdOfAListenerIsRefusedWhileOneOfItsConnectRequestsIsUnacknowledged() {
        NativeCmId listener = fakeId(CmPortSpace.TCP);
        NativeCmId request = fakeId(CmPortSpace.TCP);
        NativeCmEvent connectRequest = fakeEvent(RdmaCmEventType.CONNECT_REQUEST, request, listener);
        listener.hold(connectRequest);

        assertThatThrownBy(() -> verbs.destroyId(listener)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(connectRequest.describe());
    }

    @Test
    void anEventIsAcknowledgedOnlyOnce() {
        NativeCmId id = fakeId(CmPortSpace.TCP);
        NativeCmEvent acked = fakeEvent(RdmaCmEventType.DISCONNECTED, id, null);
        acked.markDestroyed();

        assertThatThrownBy(() -> verbs.ackEvent(acked)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("RDMA_CM_EVENT_DISCONNECTED").hasMessageContaining("already acknowledged");
    }

    @Test
    void anEventWhoseChannelWasDestroyedCannotBeAcknowledgedAnyMore() {
        NativeCmId id = fakeId(CmPortSpace.TCP);
        NativeCmEvent event = fakeEvent(RdmaCmEventType.ESTABLISHED, id, null);
        channel.markDestroyed();

        assertThatThrownBy(() -> verbs.ackEvent(event)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("went with its event channel");
    }

    @Test
    void anEventCopiesItsPrivateDataSoItStaysReadableAfterTheAck() {
        NativeCmId id = fakeId(CmPortSpace.TCP);
        byte[] data = {1, 2, 3};
        CmEvent rejected = new CmEvent(arena.allocate(RdmaCmEvent.LAYOUT), RdmaCmEventType.REJECTED,
                CmEvent.IB_CM_REJ_CONSUMER_DEFINED, id.pointer(), MemorySegment.NULL,
                Optional.of(CmConnParam.of(data, 0, 0)));
        NativeCmEvent event = new NativeCmEvent(provider, rejected, id, null);
        data[0] = 9;
        event.privateData()[1] = 9;

        assertThat(event.type()).isEqualTo(io.rdmaverbs.verbs.attr.CmEventType.REJECTED);
        assertThat(event.status()).isEqualTo(28);
        assertThat(event.privateData()).containsExactly(1, 2, 3);
        assertThat(event.listenId()).isNull();
    }

    @Test
    void aQpOfTheWrongTypeForThePortSpaceIsRefused() {
        QpInitSpec ud = new QpInitSpec(QpType.UD, null, null, null, null, null, QpCapabilities.of(4, 4), false);
        QpInitSpec rc = new QpInitSpec(QpType.RC, null, null, null, null, null, QpCapabilities.of(4, 4), false);

        assertThatThrownBy(() -> verbs.createQp(fakeId(CmPortSpace.TCP), ud))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("RDMA_PS_TCP id takes RC QPs");
        assertThatThrownBy(() -> verbs.createQp(fakeId(CmPortSpace.UDP), rc))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("RDMA_PS_UDP id takes UD QPs");
    }

    @Test
    void aQpOnAnIdWithoutADeviceIsEinvalNamingTheMissingBind() {
        QpInitSpec rc = new QpInitSpec(QpType.RC, null, null, null, null, null, QpCapabilities.of(4, 4), false);

        assertThatThrownBy(() -> verbs.createQp(fakeId(CmPortSpace.TCP), rc))
                .isInstanceOfSatisfying(VerbsException.class, e -> {
                    assertThat(e.verb()).isEqualTo("rdma_create_qp");
                    assertThat(e.errno()).isEqualTo(Errno.EINVAL);
                    assertThat(e.resource()).contains("RDMA_PS_TCP");
                    assertThat(e.getMessage()).contains("bind it or resolve its address first");
                });
    }

    @Test
    void destroyQpOfAnIdWithoutAQpIsRefused() {
        assertThatThrownBy(() -> verbs.destroyQp(fakeId(CmPortSpace.TCP))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("has no QP");
    }

    @Test
    void anUnboundIdHasNoContextNoQpAndNoAddresses() {
        NativeCmId id = fakeId(CmPortSpace.TCP);

        assertThat(verbs.context(id)).isNull();
        assertThat(verbs.qp(id)).isNull();
        assertThat(verbs.localAddress(id)).isNull();
        assertThat(verbs.peerAddress(id)).isNull();
    }

    @Test
    void aContextAdoptedFromLibrdmacmRefusesIbvCloseDeviceNamingItsOwner() {
        NativeContext adopted = new NativeContext(provider, arena.allocate(IbvContext.LAYOUT),
                new io.rdmaverbs.verbs.attr.DeviceInfo("rxe0", 1L, io.rdmaverbs.verbs.attr.NodeType.CA), 1, -1,
                WakeDescriptor.NONE, true);

        assertThat(adopted.ownedByConnectionManager()).isTrue();
        assertThatThrownBy(() -> provider.deviceVerbs().closeDevice(adopted)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("ibv_context@0x").hasMessageContaining("rxe0")
                .hasMessageContaining("librdmacm").hasMessageContaining("rdma_cm(7)");
        assertThat(adopted.isDestroyed()).isFalse();
    }

    @Test
    void withoutTheRdmaUcmModuleTheConnectionVerbsAreUnavailableWithTheModprobeHintAndTheVerbsStillWork() {
        assumeFalse(Files.exists(RdmaCm.UCMA_ABI_VERSION), "rdma_ucm is loaded here");

        assertThatThrownBy(provider::connectionVerbs).isInstanceOfSatisfying(ProviderUnavailableException.class,
                e -> {
                    assertThat(e.reason()).isEqualTo(ProviderUnavailableException.Reason.CONNECTION_MANAGER_UNAVAILABLE);
                    assertThat(e.getMessage()).contains("modprobe rdma_ucm").contains("/sys/class/misc/rdma_cm");
                });
        assertThat(provider.deviceVerbs().devices()).as("the device verbs answer").isNotNull();
    }

    @Test
    void withoutTheRdmaUcmModuleAnEventChannelIsEnodevWithTheModprobeHint() {
        assumeFalse(Files.exists(RdmaCm.UCMA_ABI_VERSION), "rdma_ucm is loaded here");

        assertThatThrownBy(verbs::createEventChannel).isInstanceOfSatisfying(VerbsException.class, e -> {
            assertThat(e.verb()).isEqualTo("rdma_create_event_channel");
            assertThat(e.errno()).isEqualTo(Errno.ENODEV);
            assertThat(e.getMessage()).contains("modprobe rdma_ucm");
        });
    }
}
