package io.rdmaverbs.verbs.provider.ffm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.rdmaverbs.verbs.attr.AccessFlag;
import io.rdmaverbs.verbs.attr.QpCapabilities;
import io.rdmaverbs.verbs.attr.QpState;
import io.rdmaverbs.verbs.attr.QpType;
import io.rdmaverbs.verbs.attr.SendFlag;
import io.rdmaverbs.verbs.attr.SendOpcode;
import io.rdmaverbs.verbs.attr.WcStatus;
import io.rdmaverbs.verbs.attr.WorkCompletions;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.error.VerbsException;
import io.rdmaverbs.verbs.provider.CmChannelHandle;
import io.rdmaverbs.verbs.attr.CmConnectionParams;
import io.rdmaverbs.verbs.provider.CmEventHandle;
import io.rdmaverbs.verbs.attr.CmEventType;
import io.rdmaverbs.verbs.provider.CmIdHandle;
import io.rdmaverbs.verbs.attr.CmPortSpace;
import io.rdmaverbs.verbs.provider.ConnectionVerbs;
import io.rdmaverbs.verbs.provider.ContextHandle;
import io.rdmaverbs.verbs.provider.CqHandle;
import io.rdmaverbs.verbs.provider.MrHandle;
import io.rdmaverbs.verbs.provider.PdHandle;
import io.rdmaverbs.verbs.provider.QpHandle;
import io.rdmaverbs.verbs.provider.QpInitSpec;
import io.rdmaverbs.verbs.provider.RecvWr;
import io.rdmaverbs.verbs.provider.SendWr;
import io.rdmaverbs.verbs.provider.VerbsProvider;
import io.rdmaverbs.verbs.provider.simulated.DeviceProfile;
import io.rdmaverbs.verbs.provider.simulated.SimulatedProvider;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link NativeConnectionVerbs} on a real kernel CM: rdma_cm loopback on rxe0's link-local address in the
 * soft-RoCE guest ({@code SOFTROCE_RDMA_ADDR}, set by {@code tools/softroce/run.sh}; rdma_ucm loaded).
 * The connection steps are written once against {@link ConnectionVerbs} and also run on the simulated
 * provider's rxe profile: both traces of events (type, status, private data length) must be the same.
 * After each test the kernel holds no cm_id and no QP of this process ({@code rdma resource show}).
 */
class NativeConnectionVerbsTest {

    private static final Duration RESOLVE = Duration.ofSeconds(5);
    private static final long EVENT_WAIT_MILLIS = 20_000;
    private static final byte[] HELLO = "hello from the client".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] WELCOME = "welcome from the server".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] GO_AWAY = "go away".getBytes(StandardCharsets.US_ASCII);

    /** What rxe's kernel CM reports for {@link Connection#acceptExchangeDisconnect}, event by event. */
    private static final List<String> CONNECTED_EXCHANGED_DISCONNECTED = List.of(
            "client ADDR_RESOLVED 0",
            "client ROUTE_RESOLVED 0",
            "server CONNECT_REQUEST 0 data=56 " + hex(HELLO),
            "client ESTABLISHED 0 data=196 " + hex(WELCOME),
            "server ESTABLISHED 0 data=0 ",
            "server received " + hex(HELLO),
            "server DISCONNECTED 0",
            "client DISCONNECTED 0");
    /** What it reports for {@link Connection#reject}: IB CM reason 28, the REJ's 148 bytes. */
    private static final List<String> REJECTED = List.of(
            "client ADDR_RESOLVED 0",
            "client ROUTE_RESOLVED 0",
            "server CONNECT_REQUEST 0 data=56 " + hex(HELLO),
            "client REJECTED 28 data=148 " + hex(GO_AWAY));

    private @Nullable NativeVerbsProvider provider;
    private InetAddress address;

    /** The native provider, when this JVM runs in the guest; skips the test elsewhere. */
    private NativeVerbsProvider kernel() {
        assumeTrue(Files.exists(RdmaCm.UCMA_ABI_VERSION), "no rdma_ucm here: see NativeConnectionVerbsValidationTest");
        String rdmaAddress = System.getenv("SOFTROCE_RDMA_ADDR");
        assumeTrue(rdmaAddress != null && !rdmaAddress.isBlank(), "SOFTROCE_RDMA_ADDR is not set (run in the guest)");
        try {
            address = InetAddress.getByName(rdmaAddress);
        } catch (IOException e) {
            throw new AssertionError(rdmaAddress, e);
        }
        provider = NativeVerbsProvider.load();
        return provider;
    }

    @AfterEach
    void kernelHoldsNothingOfThisProcess() {
        if (provider != null) {
            assertThat(ownedByThisProcess("cm_id")).as("rdma resource show cm_id").isZero();
            assertThat(ownedByThisProcess("qp")).as("rdma resource show qp").isZero();
        }
    }

    private static List<String> onSimulator(java.util.function.Function<Connection, List<String>> steps) {
        SimulatedProvider simulated = SimulatedProvider.of(DeviceProfile.rxe("rxe0"));
        return steps.apply(new Connection(simulated, simulated.addresses("rxe0").getFirst()));
    }

    @Test
    void listenConnectAcceptSendAndDisconnectOnRxeGiveTheKernelsEventSequence() {
        List<String> kernel = new Connection(kernel(), address).acceptExchangeDisconnect();

        assertThat(kernel).containsExactlyElementsOf(CONNECTED_EXCHANGED_DISCONNECTED);
    }

    @Test
    void theSimulatedProviderGivesTheKernelsSequenceForListenConnectAcceptSendAndDisconnect() {
        assertThat(onSimulator(Connection::acceptExchangeDisconnect))
                .containsExactlyElementsOf(CONNECTED_EXCHANGED_DISCONNECTED);
    }

    @Test
    void aRejectReachesTheClientWithStatus28AndThePrivateData() {
        List<String> kernel = new Connection(kernel(), address).reject();

        assertThat(kernel).containsExactlyElementsOf(REJECTED);
    }

    @Test
    void theSimulatedProviderGivesTheKernelsSequenceForAReject() {
        assertThat(onSimulator(Connection::reject)).containsExactlyElementsOf(REJECTED);
    }

    @Test
    void anUnreachableLinkLocalDestinationIsReportedAsAnEventWithItsStatus() {
        NativeVerbsProvider rdma = kernel();
        ConnectionVerbs cm = rdma.connectionVerbs();
        CmChannelHandle channel = cm.createEventChannel();
        CmIdHandle id = cm.createId(channel, CmPortSpace.TCP);
        List<String> trace = new ArrayList<>();
        try {
            InetAddress nobody = InetAddress.getByName("fe80::dead:beef%" + scope(address));
            cm.resolveAddr(id, null, new InetSocketAddress(nobody, 7471), Duration.ofSeconds(2));
            CmEventHandle event = await(cm, channel);
            trace.add(event.type() + " " + event.status());
            cm.ackEvent(event);
            if (event.type() == CmEventType.ADDR_RESOLVED) {
                cm.resolveRoute(id, RESOLVE);
                event = await(cm, channel);
                trace.add(event.type() + " " + event.status());
                cm.ackEvent(event);
                PdHandle pd = rdma.domainVerbs().allocPd(cm.context(id));
                CqHandle cq = rdma.completionVerbs().createCq(cm.context(id), 8, null, 0);
                cm.createQp(id, rc(pd, cq));
                cm.connect(id, CmConnectionParams.defaults());
                event = cm.getEvent(channel, 180_000);
                trace.add(event == null ? "nothing in 180 s" : event.type() + " " + event.status());
                if (event != null) {
                    cm.ackEvent(event);
                }
                cm.destroyQp(id);
                rdma.completionVerbs().destroyCq(cq);
                rdma.domainVerbs().deallocPd(pd);
            }
        } catch (IOException e) {
            throw new AssertionError(e);
        } finally {
            System.out.println("unreachable destination: " + trace);
            cm.destroyId(id);
            cm.destroyEventChannel(channel);
        }
        // dummy0 is NOARP, so the address and route resolve; the REQ gets no answer, and the IB CM gives up
        // after its retries (about 100 s in the guest) with -ETIMEDOUT.
        assertThat(trace).containsExactly("ADDR_RESOLVED 0", "ROUTE_RESOLVED 0", "UNREACHABLE -" + Errno.ETIMEDOUT.number());
    }

    @Test
    void aSecondBindToAPortInUseIsEaddrinuse() {
        NativeVerbsProvider rdma = kernel();
        ConnectionVerbs cm = rdma.connectionVerbs();
        CmChannelHandle channel = cm.createEventChannel();
        CmIdHandle first = cm.createId(channel, CmPortSpace.TCP);
        CmIdHandle second = cm.createId(channel, CmPortSpace.TCP);
        try {
            cm.bindAddr(first, new InetSocketAddress(address, 0));
            cm.listen(first, 4);
            InetSocketAddress bound = cm.localAddress(first);
            assertThat(bound.getPort()).as("port 0 picked a port").isPositive();
            assertThat(bound.getAddress()).isEqualTo(address);

            assertThatThrownBy(() -> cm.bindAddr(second, bound)).isInstanceOfSatisfying(VerbsException.class, e -> {
                assertThat(e.verb()).isEqualTo("rdma_bind_addr");
                assertThat(e.errno()).isEqualTo(Errno.EADDRINUSE);
                assertThat(e.resource()).contains("RDMA_PS_TCP");
            });
        } finally {
            cm.destroyId(second);
            cm.destroyId(first);
            cm.destroyEventChannel(channel);
        }
    }

    @Test
    void theAdoptedContextIsOneHandlePerDeviceRefusesCloseAndRefusesAPdOfAnotherContext() {
        NativeVerbsProvider rdma = kernel();
        ConnectionVerbs cm = rdma.connectionVerbs();
        CmChannelHandle channel = cm.createEventChannel();
        CmIdHandle a = cm.createId(channel, CmPortSpace.TCP);
        CmIdHandle b = cm.createId(channel, CmPortSpace.TCP);
        ContextHandle opened = rdma.deviceVerbs().openDevice(rdma.deviceVerbs().devices().getFirst());
        PdHandle foreignPd = rdma.domainVerbs().allocPd(opened);
        CqHandle foreignCq = rdma.completionVerbs().createCq(opened, 8, null, 0);
        try {
            assertThat(cm.context(a)).as("before bind").isNull();
            cm.bindAddr(a, new InetSocketAddress(address, 0));
            cm.bindAddr(b, new InetSocketAddress(address, 0));
            ContextHandle adopted = cm.context(a);

            assertThat(adopted).isSameAs(cm.context(b));
            assertThat(adopted.ownedByConnectionManager()).isTrue();
            assertThat(adopted.device().name()).isEqualTo(opened.device().name());
            assertThat(rdma.deviceVerbs().queryDevice(adopted).physPortCount()).isEqualTo(1);
            assertThatThrownBy(() -> rdma.deviceVerbs().closeDevice(adopted))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("librdmacm");
            assertThatThrownBy(() -> cm.createQp(a, rc(foreignPd, foreignCq)))
                    .isInstanceOfSatisfying(VerbsException.class, e -> {
                        assertThat(e.verb()).isEqualTo("rdma_create_qp");
                        assertThat(e.errno()).isEqualTo(Errno.EINVAL);
                        assertThat(e.getMessage()).contains("context(id)");
                    });
            assertThat(cm.qp(a)).isNull();
        } finally {
            rdma.completionVerbs().destroyCq(foreignCq);
            rdma.domainVerbs().deallocPd(foreignPd);
            rdma.deviceVerbs().closeDevice(opened);
            cm.destroyId(b);
            cm.destroyId(a);
            cm.destroyEventChannel(channel);
        }
    }

    @Test
    void destroyIdIsRefusedUntilItsEventIsAcknowledgedAndAnEventIsAcknowledgedOnce() {
        NativeVerbsProvider rdma = kernel();
        ConnectionVerbs cm = rdma.connectionVerbs();
        CmChannelHandle channel = cm.createEventChannel();
        CmIdHandle id = cm.createId(channel, CmPortSpace.TCP);
        try {
            cm.resolveAddr(id, null, new InetSocketAddress(address, 7471), RESOLVE);
            CmEventHandle resolved = await(cm, channel);
            assertThat(resolved.type()).isEqualTo(CmEventType.ADDR_RESOLVED);
            assertThat(resolved.id()).isSameAs(id);
            assertThat(cm.peerAddress(id)).isEqualTo(new InetSocketAddress(address, 7471));

            assertThatThrownBy(() -> cm.destroyId(id)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("would block forever").hasMessageContaining(resolved.describe());

            cm.ackEvent(resolved);
            assertThatThrownBy(() -> cm.ackEvent(resolved)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("already acknowledged");
            assertThat(cm.getEvent(channel, 50)).as("nothing more").isNull();
        } finally {
            cm.destroyId(id);
            cm.destroyEventChannel(channel);
        }
    }

    @Test
    void anEventIsReadyBeforeItIsReadAndAReadThatDoesNotWaitTakesItOrFindsNothing() {
        NativeVerbsProvider rdma = kernel();
        ConnectionVerbs cm = rdma.connectionVerbs();
        CmChannelHandle channel = cm.createEventChannel();
        CmIdHandle id = cm.createId(channel, CmPortSpace.TCP);
        try {
            assertThat(cm.getEvent(channel, 0)).as("nothing queued: EAGAIN, not a block").isNull();
            cm.resolveAddr(id, null, new InetSocketAddress(address, 7471), RESOLVE);

            assertThat(cm.awaitEventReady(channel, EVENT_WAIT_MILLIS)).isTrue();
            assertThat(cm.awaitEventReady(channel, 0)).as("the event was not read").isTrue();
            CmEventHandle resolved = cm.getEvent(channel, 0);
            assertThat(resolved).isNotNull();
            assertThat(resolved.type()).isEqualTo(CmEventType.ADDR_RESOLVED);
            cm.ackEvent(resolved);
            assertThat(cm.awaitEventReady(channel, 50)).as("nothing more").isFalse();
            assertThat(cm.getEvent(channel, 0)).isNull();
        } finally {
            cm.destroyId(id);
            cm.destroyEventChannel(channel);
        }
    }

    /** What CmEventChannel relies on to destroy an id outside the wait: the kernel drops unread events. */
    @Test
    void anIdWhoseEventIsQueuedButUnreadIsDestroyedAtOnceAndTheKernelDropsTheEvent() {
        NativeVerbsProvider rdma = kernel();
        ConnectionVerbs cm = rdma.connectionVerbs();
        CmChannelHandle channel = cm.createEventChannel();
        try {
            CmIdHandle id = cm.createId(channel, CmPortSpace.TCP);
            cm.resolveAddr(id, null, new InetSocketAddress(address, 7471), RESOLVE);
            assertThat(cm.awaitEventReady(channel, EVENT_WAIT_MILLIS)).isTrue();

            assertTimeoutPreemptively(Duration.ofSeconds(5), () -> cm.destroyId(id));

            assertThat(cm.getEvent(channel, 0)).as("ADDR_RESOLVED went with its id").isNull();
        } finally {
            cm.destroyEventChannel(channel);
        }
    }

    @Test
    void aWakeEndsAWaitForACmEventWithoutAnEvent() throws Exception {
        NativeVerbsProvider rdma = kernel();
        ConnectionVerbs cm = rdma.connectionVerbs();
        CmChannelHandle channel = cm.createEventChannel();
        try {
            Thread waker = Thread.ofPlatform().start(() -> {
                sleep(300);
                cm.wakeEventWaiters(channel);
            });
            long start = System.nanoTime();
            assertThat(cm.getEvent(channel, 30_000)).isNull();
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(10_000);
            waker.join();
        } finally {
            cm.destroyEventChannel(channel);
        }
    }

    @Test
    void destroyingAChannelWithAnIdOnItMakesTheKernelDestroyTheIdAndItsHandleUnusable() {
        NativeVerbsProvider rdma = kernel();
        ConnectionVerbs cm = rdma.connectionVerbs();
        CmChannelHandle channel = cm.createEventChannel();
        CmIdHandle id = cm.createId(channel, CmPortSpace.TCP);
        cm.bindAddr(id, new InetSocketAddress(address, 0));

        cm.destroyEventChannel(channel);

        assertThatThrownBy(() -> cm.localAddress(id)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> cm.destroyId(id)).isInstanceOf(IllegalStateException.class);
        // @AfterEach: no cm_id left in the kernel.
    }

    // ---- the steps, on any provider -----------------------------------------------------------------

    /** A listener and a client on one device, through one provider's verbs; records every event. */
    private static final class Connection {

        private final VerbsProvider verbs;
        private final ConnectionVerbs cm;
        private final InetAddress address;
        private final List<String> trace = new ArrayList<>();

        Connection(VerbsProvider verbs, InetAddress address) {
            this.verbs = verbs;
            this.cm = verbs.connectionVerbs();
            this.address = address;
        }

        List<String> acceptExchangeDisconnect() {
            CmChannelHandle serverChannel = cm.createEventChannel();
            CmChannelHandle clientChannel = cm.createEventChannel();
            CmIdHandle listener = cm.createId(serverChannel, CmPortSpace.TCP);
            CmIdHandle client = cm.createId(clientChannel, CmPortSpace.TCP);
            try (Arena arena = Arena.ofShared()) {
                int port = listen(listener);
                resolve(client, port);
                ContextHandle context = cm.context(client);
                PdHandle pd = verbs.domainVerbs().allocPd(context);
                CqHandle clientCq = verbs.completionVerbs().createCq(context, 16, null, 0);
                CqHandle serverCq = verbs.completionVerbs().createCq(context, 16, null, 0);
                MemorySegment buffer = arena.allocate(256, 4096);
                MemorySegment.copy(HELLO, 0, buffer, ValueLayout.JAVA_BYTE, 0, HELLO.length);
                MrHandle mr = verbs.memoryRegionVerbs().regMr(pd, buffer, AccessFlag.mask(java.util.EnumSet.of(
                        AccessFlag.LOCAL_WRITE)));
                QpHandle clientQp = cm.createQp(client, rc(pd, clientCq));
                cm.connect(client, CmConnectionParams.defaults().withPrivateData(HELLO));

                CmEventHandle request = expect("server", serverChannel, CmEventType.CONNECT_REQUEST);
                CmIdHandle accepted = request.id();
                assertThat(request.listenId()).isSameAs(listener);
                assertThat(cm.context(accepted)).as("one handle per device context").isSameAs(context);
                assertThat(cm.peerAddress(accepted).getAddress()).isEqualTo(address);
                QpHandle serverQp = cm.createQp(accepted, rc(pd, serverCq));
                assertThat(cm.qp(accepted)).isSameAs(serverQp);
                RecvWr recv = verbs.queuePairVerbs().newRecvWr(1);
                recv.wrId(7);
                recv.sge(0, buffer.address() + 128, 128, mr.lkey());
                recv.sgeCount(1);
                verbs.queuePairVerbs().postRecv(serverQp, recv);
                cm.accept(accepted, CmConnectionParams.defaults().withPrivateData(WELCOME));
                cm.ackEvent(request);
                cm.ackEvent(expect("client", clientChannel, CmEventType.ESTABLISHED));
                cm.ackEvent(expect("server", serverChannel, CmEventType.ESTABLISHED));
                assertThat(verbs.queuePairVerbs().queryQp(clientQp).state()).isEqualTo(QpState.RTS);

                SendWr send = verbs.queuePairVerbs().newSendWr(1);
                send.wrId(9);
                send.opcode(SendOpcode.SEND);
                send.flags(SendFlag.SIGNALED);
                send.sge(0, buffer.address(), HELLO.length, mr.lkey());
                send.sgeCount(1);
                verbs.queuePairVerbs().postSend(clientQp, send);
                WorkCompletions wc = verbs.completionVerbs().newWorkCompletions(4);
                assertThat(poll(clientCq, wc)).isEqualTo(WcStatus.SUCCESS);
                assertThat(poll(serverCq, wc)).isEqualTo(WcStatus.SUCCESS);
                trace.add("server received " + hex(buffer.asSlice(128, wc.byteLength(0)).toArray(ValueLayout.JAVA_BYTE)));

                // The DREQ reaches the server at once; the client's DISCONNECTED waits for the server's DREP,
                // which its own rdma_disconnect sends (else the DREQ times out, seconds later).
                cm.disconnect(client);
                cm.ackEvent(expect("server", serverChannel, CmEventType.DISCONNECTED));
                cm.disconnect(accepted);
                cm.ackEvent(expect("client", clientChannel, CmEventType.DISCONNECTED));

                cm.destroyQp(client);
                cm.destroyQp(accepted);
                assertThat(cm.qp(client)).isNull();
                cm.destroyId(accepted);
                wc.close();
                send.close();
                recv.close();
                verbs.memoryRegionVerbs().deregMr(mr);
                verbs.completionVerbs().destroyCq(serverCq);
                verbs.completionVerbs().destroyCq(clientCq);
                verbs.domainVerbs().deallocPd(pd);
            } finally {
                release(client);
                release(listener);
                cm.destroyEventChannel(clientChannel);
                cm.destroyEventChannel(serverChannel);
            }
            return trace;
        }

        List<String> reject() {
            CmChannelHandle serverChannel = cm.createEventChannel();
            CmChannelHandle clientChannel = cm.createEventChannel();
            CmIdHandle listener = cm.createId(serverChannel, CmPortSpace.TCP);
            CmIdHandle client = cm.createId(clientChannel, CmPortSpace.TCP);
            try {
                int port = listen(listener);
                resolve(client, port);
                ContextHandle context = cm.context(client);
                PdHandle pd = verbs.domainVerbs().allocPd(context);
                CqHandle cq = verbs.completionVerbs().createCq(context, 16, null, 0);
                cm.createQp(client, rc(pd, cq));
                cm.connect(client, CmConnectionParams.defaults().withPrivateData(HELLO));
                CmEventHandle request = expect("server", serverChannel, CmEventType.CONNECT_REQUEST);
                cm.reject(request.id(), GO_AWAY);
                cm.ackEvent(request);
                cm.ackEvent(expect("client", clientChannel, CmEventType.REJECTED));
                cm.destroyId(request.id());
                cm.destroyQp(client);
                verbs.completionVerbs().destroyCq(cq);
                verbs.domainVerbs().deallocPd(pd);
            } finally {
                release(client);
                release(listener);
                cm.destroyEventChannel(clientChannel);
                cm.destroyEventChannel(serverChannel);
            }
            return trace;
        }

        /** After a failed step too: the QP first (destroyId leaves it, as librdmacm does), then the id. */
        private void release(CmIdHandle id) {
            if (cm.qp(id) != null) {
                cm.destroyQp(id);
            }
            cm.destroyId(id);
        }

        private int listen(CmIdHandle listener) {
            cm.bindAddr(listener, new InetSocketAddress(address, 0));
            cm.listen(listener, 4);
            return cm.localAddress(listener).getPort();
        }

        private void resolve(CmIdHandle client, int port) {
            cm.resolveAddr(client, null, new InetSocketAddress(address, port), RESOLVE);
            cm.ackEvent(expect("client", client.channel(), CmEventType.ADDR_RESOLVED));
            cm.resolveRoute(client, RESOLVE);
            cm.ackEvent(expect("client", client.channel(), CmEventType.ROUTE_RESOLVED));
        }

        /** The next event, recorded as "side TYPE status[ data=length hex-of-the-sent-prefix]". */
        private CmEventHandle expect(String side, CmChannelHandle channel, CmEventType type) {
            CmEventHandle event = await(cm, channel);
            byte[] data = event.privateData();
            String line = side + " " + event.type() + " " + event.status();
            if (event.type() == CmEventType.CONNECT_REQUEST || event.type() == CmEventType.ESTABLISHED
                    || event.type() == CmEventType.REJECTED) {
                line += " data=" + data.length + " " + hex(trimZeros(data));
            }
            trace.add(line);
            assertThat(event.type()).as("event after " + trace).isEqualTo(type);
            return event;
        }

        private WcStatus poll(CqHandle cq, WorkCompletions wc) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (System.nanoTime() < deadline) {
                if (verbs.completionVerbs().pollCq(cq, wc, 1) == 1) {
                    return wc.status(0);
                }
                Thread.onSpinWait();
            }
            throw new AssertionError("no completion on " + cq.describe() + " in 20 s");
        }
    }

    private static CmEventHandle await(ConnectionVerbs cm, CmChannelHandle channel) {
        CmEventHandle event = cm.getEvent(channel, EVENT_WAIT_MILLIS);
        if (event == null) {
            throw new AssertionError("no CM event on " + channel.describe() + " in " + EVENT_WAIT_MILLIS + " ms");
        }
        return event;
    }

    private static QpInitSpec rc(PdHandle pd, CqHandle cq) {
        return new QpInitSpec(QpType.RC, pd, null, cq, cq, null, QpCapabilities.of(8, 8), false);
    }

    private static String scope(InetAddress address) {
        String text = address.getHostAddress();
        return text.substring(text.indexOf('%') + 1);
    }

    private static byte[] trimZeros(byte[] data) {
        int end = data.length;
        while (end > 0 && data[end - 1] == 0) {
            end--;
        }
        return Arrays.copyOf(data, end);
    }

    private static String hex(byte[] data) {
        return java.util.HexFormat.of().formatHex(data);
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Objects of {@code type} in {@code rdma -j resource show type} whose pid is this process or one of its threads. */
    private static int ownedByThisProcess(String type) {
        try {
            Process p = new ProcessBuilder("rdma", "-j", "resource", "show", type).redirectErrorStream(true).start();
            String json = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            p.waitFor(30, TimeUnit.SECONDS);
            long self = ProcessHandle.current().pid();
            int n = 0;
            Matcher m = Pattern.compile("\"pid\"\\s*:\\s*(\\d+)").matcher(json);
            while (m.find()) {
                long pid = Long.parseLong(m.group(1));
                if (pid == self || Files.exists(java.nio.file.Path.of("/proc/self/task/" + pid))) {
                    n++;
                }
            }
            return n;
        } catch (IOException e) {
            throw new AssertionError("rdma resource show " + type + " failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
