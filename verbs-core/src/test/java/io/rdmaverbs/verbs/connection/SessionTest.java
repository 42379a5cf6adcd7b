package io.rdmaverbs.verbs.connection;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.zip.CRC32;

import io.rdmaverbs.verbs.ResourceClosedException;
import io.rdmaverbs.verbs.ResourceKind;
import io.rdmaverbs.verbs.VerbsResource;
import io.rdmaverbs.verbs.attr.AccessFlag;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Sessions between two simulated hosts: the protocol's correlation, credits, large messages and the end
 * of a session, as an application sees them.
 */
class SessionTest {

    private static final Duration WAIT = Duration.ofSeconds(10);

    private final TwoHosts hosts = new TwoHosts();

    @AfterEach
    void closeAll() {
        hosts.close();
    }

    private ConnectionListener listening(SessionSpec session) {
        return hosts.server.listen(ListenSpec.on(hosts.anyServerPort()).backlog(8).session(session),
                ConnectionRequest::accept);
    }

    private Session connect(ConnectionListener listener) {
        Connection c = hosts.client.connect(ConnectSpec.to(listener.address()));
        assertThat(c.isMessaging()).isTrue();
        return c.session();
    }

    private static long crc(byte[] bytes) {
        CRC32 crc = new CRC32();
        crc.update(bytes);
        return crc.getValue();
    }

    @Test
    void aRequestIsAnsweredByTheHandlersReplyWithHeaders() throws Exception {
        ConnectionListener l = listening(SessionSpec.defaults().handler(m -> m.reply(
                Message.of("echo: " + m.message().asString()).withHeader("content-type", "text/plain"))));
        Session s = connect(l);

        Message reply = s.request(Message.of("hello")).get(WAIT.toSeconds(), TimeUnit.SECONDS);

        assertThat(reply.asString()).isEqualTo("echo: hello");
        assertThat(reply.header("content-type")).isEqualTo("text/plain");
        assertThat(s.statistics().repliesReceived()).isEqualTo(1);
    }

    @Test
    void pipelinedRequestsAnsweredOutOfOrderEachGetTheirOwnReply() throws Exception {
        // The handler answers every request later, from another thread, in reverse order of arrival.
        List<InboundMessage> held = new CopyOnWriteArrayList<>();
        CountDownLatch all = new CountDownLatch(12);
        ConnectionListener l = listening(SessionSpec.defaults().handler(m -> {
            held.add(m);
            all.countDown();
        }));
        Session s = connect(l);
        List<CompletableFuture<Message>> replies = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            replies.add(s.request(Message.of("request " + i)));
        }
        assertThat(all.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        List<InboundMessage> reversed = new ArrayList<>(held);
        java.util.Collections.reverse(reversed);
        for (InboundMessage m : reversed) {
            // The payload is gone once the handler returned: the reply names the correlation id instead.
            m.reply(Message.of("reply to " + m.correlationId()));
        }
        for (int i = 0; i < 12; i++) {
            Message reply = replies.get(i).get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(reply.asString()).isEqualTo("reply to " + (i + 1));
        }
    }

    @Test
    void aLateReplyIsCountedAndDroppedNeverHandedToTheNextRequest() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        ConnectionListener l = listening(SessionSpec.defaults().handler(m -> {
            if (m.message().asString().equals("slow")) {
                release.await();
            }
            m.reply(Message.of("reply to " + m.message().asString()));
        }).handlerExecutor(java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()));
        Session s = connect(l);

        CompletableFuture<Message> slow = s.request(Message.of("slow"), Duration.ofMillis(200));
        assertThatThrownBy(() -> slow.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(TimeoutException.class);
        CompletableFuture<Message> next = s.request(Message.of("fast"));
        release.countDown();

        assertThat(next.get(WAIT.toSeconds(), TimeUnit.SECONDS).asString()).isEqualTo("reply to fast");
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (s.statistics().lateReplies() == 0 && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(s.statistics().lateReplies()).isEqualTo(1);
        assertThat(s.statistics().requestTimeouts()).isEqualTo(1);
    }

    @Test
    void aHandlerThatThrowsAnswersTheRequestWithAnErrorNamingTheException() {
        ConnectionListener l = listening(SessionSpec.defaults().handler(m -> {
            throw new IllegalArgumentException("no such order");
        }));
        Session s = connect(l);

        assertThatThrownBy(() -> s.requestAndWait(Message.of("order 7"), WAIT))
                .isInstanceOfSatisfying(RemoteErrorException.class, e -> {
                    assertThat(e.errorType()).isEqualTo(IllegalArgumentException.class.getName());
                    assertThat(e.errorMessage()).isEqualTo("no such order");
                });
    }

    @Test
    void aRequestWithNoHandlerIsAnsweredWithAnError() {
        ConnectionListener l = listening(SessionSpec.defaults());
        Session s = connect(l);

        assertThatThrownBy(() -> s.requestAndWait(Message.of("anyone?"), WAIT))
                .isInstanceOfSatisfying(RemoteErrorException.class, e -> assertThat(e.errorType()).isEqualTo("no-handler"));
    }

    @Test
    void aSenderFasterThanItsReceiverWaitsForCreditsAndLosesNothing() throws Exception {
        // The handler is slow; the sender submits far more messages than the peer has receive buffers.
        List<String> got = new CopyOnWriteArrayList<>();
        ConnectionListener l = listening(SessionSpec.defaults().handler(m -> {
            Thread.sleep(1);
            got.add(m.message().asString());
        }));
        Session s = connect(l);
        List<CompletableFuture<Void>> sends = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            sends.add(s.send(Message.of("m" + i)));
        }
        CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new)).get(WAIT.toSeconds(), TimeUnit.SECONDS);
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (got.size() < 200 && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            expected.add("m" + i);
        }
        assertThat(got).as("every message, in order").isEqualTo(expected);
        assertThat(hosts.clientHost.resourceCounts("rxe1").objects()).isPositive();
    }

    @Test
    void messagesFromOneByteToSixteenMebibytesArriveWithTheirChecksumInOrder() throws Exception {
        List<Long> sums = new CopyOnWriteArrayList<>();
        ConnectionListener l = listening(SessionSpec.defaults().handler(m -> m.reply(Message.of(
                String.valueOf(crc(m.toByteArray()))))));
        Session s = connect(l);
        Random random = new Random(7);
        int[] sizes = {1, 100, 4000, 4096, 5000, 70_000, 1 << 20, (1 << 20) + 17, 16 << 20};
        List<CompletableFuture<Message>> replies = new ArrayList<>();
        for (int size : sizes) {
            byte[] payload = new byte[size];
            random.nextBytes(payload);
            sums.add(crc(payload));
            replies.add(s.request(Message.of(payload)));
        }
        for (int i = 0; i < sizes.length; i++) {
            assertThat(Long.parseLong(replies.get(i).get(WAIT.toSeconds(), TimeUnit.SECONDS).asString()))
                    .as("the checksum of %d bytes", sizes[i]).isEqualTo(sums.get(i));
        }
        assertThat(s.statistics().largeMessagesSent()).as("4096 bytes and more: larger than a receive buffer with its header")
                .isEqualTo(6);
        // The server's regions go once its handler returned, which is just after it replied.
        eventually(() -> assertThat(hosts.serverVerbs.resources()).extracting(VerbsResource::name)
                .noneMatch(n -> n.contains("large-in")));
        assertThat(hosts.clientVerbs.resources()).extracting(VerbsResource::name)
                .noneMatch(n -> n.contains("large-out"));
    }

    private static void eventually(Runnable assertion) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (true) {
            try {
                assertion.run();
                return;
            } catch (AssertionError e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(5);
            }
        }
    }

    @Test
    void aLargeMessageInARegisteredRegionIsReadStraightFromIt() throws Exception {
        List<Long> sums = new CopyOnWriteArrayList<>();
        ConnectionListener l = listening(SessionSpec.defaults().handler(m -> sums.add(crc(m.toByteArray()))));
        Session s = connect(l);
        var region = s.connection().allocateMemory(1 << 20, EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_READ));
        byte[] bytes = new byte[1 << 20];
        new Random(3).nextBytes(bytes);
        MemorySegment.copy(MemorySegment.ofArray(bytes), 0, region.segment(), 0, bytes.length);

        s.sendAndWait(Message.of(region.segment()));

        long deadline = System.nanoTime() + WAIT.toNanos();
        while (sums.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(sums).containsExactly(crc(bytes));
        assertThat(hosts.clientVerbs.resources()).extracting(VerbsResource::name)
                .noneMatch(n -> n.contains("large-out"));
    }

    @Test
    void aPayloadIsSentFromTheRegionItLiesInAndNeverFromOneThatWasClosed() {
        ConnectionListener l = listening(SessionSpec.defaults().handler(m -> { }));
        Connection c = connect(l).connection();
        var access = EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_READ);
        var a = c.allocateMemory(4096, access);
        var b = c.allocateMemory(4096, access);
        MemorySegment inA = a.segment().asSlice(64, 64);

        assertThat(c.regionOf(inA)).isSameAs(a);
        assertThat(c.regionOf(inA)).isSameAs(a);
        assertThat(c.regionOf(b.segment().asSlice(4032, 64))).isSameAs(b);
        assertThat(c.regionOf(a.segment().asSlice(4032, 64))).isSameAs(a);
        assertThat(c.regionOf(MemorySegment.ofAddress(a.address() + 4032).reinterpret(128))).isNull();
        assertThat(c.regionOf(MemorySegment.ofArray(new byte[64]))).isNull();

        a.close();

        assertThat(c.regionOf(inA)).isNull();
        assertThat(c.regionOf(b.segment())).isSameAs(b);
    }

    @Test
    void aMessageLargerThanThePeersMaximumIsRefusedAndTheSenderToldWhy() {
        ConnectionListener l = listening(SessionSpec.defaults().maxMessageSize(1 << 20).handler(m -> { }));
        Session s = connect(l);

        assertThatThrownBy(() -> s.sendAndWait(Message.of(new byte[2 << 20])))
                .isInstanceOfSatisfying(RemoteErrorException.class, e -> assertThat(e.errorMessage())
                        .contains("2097152 bytes").contains("max message size 1048576"));
    }

    @Test
    void aSendOnAClosedSessionFailsWithResourceClosedExceptionNamingTheConnection() throws Exception {
        ConnectionListener l = listening(SessionSpec.defaults().handler(m -> { }));
        Session s = connect(l);
        s.connection().close();

        assertThatThrownBy(() -> s.send(Message.of("late")))
                .isInstanceOf(ResourceClosedException.class).hasMessageContaining(s.name());
        assertThat(s.closeFuture().get(1, TimeUnit.SECONDS).local()).isTrue();
    }

    @Test
    void sendsRacingTheConnectionsCloseFailOnlyWithResourceClosedException() throws Exception {
        ConnectionListener l = listening(SessionSpec.defaults().handler(m -> { }));
        for (int round = 0; round < 20; round++) {
            Session s = connect(l);
            List<Throwable> failures = new CopyOnWriteArrayList<>();
            CountDownLatch go = new CountDownLatch(1);
            List<Thread> senders = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                senders.add(Thread.ofPlatform().start(() -> {
                    try {
                        go.await();
                        for (int i = 0; i < 200; i++) {
                            // Large ones too: their regions are registered while the close releases the PD.
                            s.send(Message.of(new byte[i % 10 == 0 ? 10_000 : 100])).exceptionally(e -> {
                                failures.add(e instanceof java.util.concurrent.CompletionException ? e.getCause() : e);
                                return null;
                            });
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    } catch (RuntimeException e) {
                        failures.add(e);
                    }
                }));
            }
            go.countDown();
            s.connection().close();
            for (Thread t : senders) {
                t.join(WAIT.toMillis());
            }
            assertThat(failures).as("round %d", round).allSatisfy(e -> assertThat(e)
                    .isInstanceOf(ResourceClosedException.class).hasMessageContaining(s.name()));
        }
    }

    @Test
    void thePeersDisconnectEndsTheSessionAndFailsItsPendingRequests() throws Exception {
        CountDownLatch never = new CountDownLatch(1);
        ConnectionListener l = listening(SessionSpec.defaults().handler(m -> never.await()));
        Session s = connect(l);
        CompletableFuture<Message> waiting = s.request(Message.of("will not be answered"));
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (hosts.server.connections().isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }

        hosts.server.connections().getFirst().disconnect();

        SessionEnd end = s.closeFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertThat(end.byPeer()).isTrue();
        assertThat(end.failedCompletions()).as("the receives this side's answer to the DREQ flushed")
                .anySatisfy(f -> assertThat(f).endsWith("RECV WR_FLUSH_ERR"));
        assertThat(waiting).failsWithin(WAIT).withThrowableThat().havingCause()
                .isInstanceOf(ResourceClosedException.class);
        never.countDown();
    }

    @Test
    void aPeerThatDoesNotSpeakTheProtocolIsRejectedSayingSo() {
        ConnectionListener l = listening(SessionSpec.defaults());

        assertThatThrownBy(() -> hosts.client.connect(ConnectSpec.to(l.address()).raw()))
                .isInstanceOf(ConnectionRejectedException.class)
                .hasMessageContaining("RVMS v1").hasMessageContaining("not the RVMS hello");
    }

    @Test
    void closingBothManagersWithSessionsInFlightLeavesNothingOnEitherHost() throws Exception {
        ConnectionListener l = listening(SessionSpec.defaults().handler(m -> m.reply(m.message().detached())));
        List<Session> sessions = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            sessions.add(connect(l));
        }
        for (Session s : sessions) {
            for (int i = 0; i < 20; i++) {
                s.request(Message.of(("x" + i).getBytes(StandardCharsets.UTF_8)));
            }
        }

        ShutdownReport report = hosts.client.close(WAIT);

        assertThat(report.isComplete()).isTrue();
        assertThat(report.connections()).hasSize(3).allSatisfy(c -> assertThat(c.disconnect())
                .isEqualTo(ConnectionCloseReport.Disconnect.BY_THIS_SIDE));
        assertThat(hosts.clientVerbs.resources()).extracting(VerbsResource::kind).doesNotContain(ResourceKind.CM_ID,
                ResourceKind.QUEUE_PAIR, ResourceKind.MEMORY_REGION, ResourceKind.COMPLETION_CHANNEL);
        assertThat(hosts.clientHost.resourceCounts("rxe1").objects()).isZero();
    }
}
