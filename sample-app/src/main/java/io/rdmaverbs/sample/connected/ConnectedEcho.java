package io.rdmaverbs.sample.connected;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.zip.CRC32;

import io.rdmaverbs.spring.boot.connections.RdmaPeer;
import io.rdmaverbs.spring.boot.connections.RdmaPeerUnavailableException;
import io.rdmaverbs.spring.boot.messaging.RdmaTemplate;

import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.stereotype.Service;

/**
 * Sends requests through the {@link RdmaTemplate} to the route {@code echo} of a peer's listener
 * ({@link EchoEndpoint} on the other side) and checks each echo: a message is {@code size - 4} pseudo-random
 * bytes followed by their CRC32 (big-endian); an echo must have the same length, a CRC32 that matches its
 * own bytes, and the CRC32 of the message sent. Up to 16 requests are in flight at once (messages up to 64 KiB;
 * larger ones go one at a time), their replies matched by correlation id. A message larger than the
 * connection's buffer-size goes by rendezvous (the listener reads it with RDMA READ), up to its
 * max-message-size.
 */
@Service
public class ConnectedEcho {

    /** Room for the CRC32 and at least one byte. */
    static final int MIN_SIZE = 5;
    private static final Duration REPLY_WAIT = Duration.ofSeconds(5);
    /** Requests in flight at once; messages above {@link #LARGE} go one at a time (each a rendezvous of its own). */
    private static final int WINDOW = 16;
    private static final int LARGE = 64 << 10;

    /** Absent when no connection is declared (or {@code rdma.verbs.connections.enabled=false}). */
    private final ObjectProvider<RdmaTemplate> templates;

    ConnectedEcho(ObjectProvider<RdmaTemplate> templates) {
        this.templates = templates;
    }

    /**
     * @throws RdmaPeerUnavailableException when the peer is not connected before the first message
     * @throws IllegalArgumentException for no such peer, or a bad count or size
     */
    public EchoRun echo(String name, int count, int size) {
        RdmaTemplate template = templates.getIfAvailable();
        if (template == null) {
            throw new IllegalArgumentException("no RDMA peer '" + name + "' is declared (no connection is)");
        }
        RdmaPeer peer = template.peer(name);
        if (count < 1 || size < MIN_SIZE) {
            throw new IllegalArgumentException("count must be at least 1 and size at least " + MIN_SIZE + " bytes");
        }
        long max = peer.session().map(s -> s.spec().maxMessageSize()).orElse((long) Integer.MAX_VALUE);
        if (size > max) {
            throw new IllegalArgumentException("size " + size + " is above the connection's max-message-size of " + max
                    + " bytes");
        }
        // A large message waits longer: a second per MiB more, what soft-RoCE under emulation may take both ways.
        Duration replyWait = REPLY_WAIT.plusSeconds(size >> 20);
        // Requests are pipelined, a window of them in flight: each reply is matched by its correlation id,
        // and the run takes about one round trip per window instead of one per message.
        int window = size > LARGE ? 1 : WINDOW;
        Tally tally = new Tally();
        ArrayDeque<InFlight> inFlight = new ArrayDeque<>();
        SplittableRandom random = new SplittableRandom(size * 31L + count);
        for (int i = 0; i < count && tally.firstUnavailable == null; i++) {
            if (inFlight.size() == window) {
                settle(inFlight.poll(), tally);
            }
            byte[] message = message(random, size);
            CompletableFuture<byte[]> reply;
            try {
                reply = template.convertSendAndReceiveAsync(name, "echo", message, byte[].class, replyWait);
            } catch (RdmaPeerUnavailableException e) {
                if (tally.sent == 0) {
                    throw e;
                }
                tally.peerLost(i, e);
                break;
            }
            tally.sent++;
            inFlight.add(new InFlight(i, message, reply));
        }
        while (!inFlight.isEmpty()) {
            settle(inFlight.poll(), tally);
        }
        // Not connected from the first message on: the caller hears that, as from a blocking request.
        RdmaPeerUnavailableException unavailable = tally.firstUnavailable;
        if (tally.echoed == 0 && unavailable != null && tally.firstUnavailableIndex == 0) {
            throw unavailable;
        }
        return new EchoRun(name, tally.sent, tally.echoed, tally.mismatches, tally.errors);
    }

    private record InFlight(int index, byte[] message, CompletableFuture<byte[]> reply) {
    }

    private static final class Tally {
        int sent;
        int echoed;
        int mismatches;
        @Nullable RdmaPeerUnavailableException firstUnavailable;
        int firstUnavailableIndex = -1;
        final List<String> errors = new ArrayList<>();

        void peerLost(int index, RdmaPeerUnavailableException e) {
            if (firstUnavailable == null) {
                firstUnavailable = e;
                firstUnavailableIndex = index;
            }
            errors.add("message " + index + ": " + e.getMessage());
        }
    }

    private static void settle(InFlight f, Tally tally) {
        byte[] echo;
        try {
            echo = f.reply().join();
        } catch (CompletionException | CancellationException e) {
            Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
            if (cause instanceof RdmaPeerUnavailableException unavailable) {
                tally.peerLost(f.index(), unavailable);
            } else {
                tally.errors.add("message " + f.index() + ": " + cause.getMessage());
            }
            return;
        }
        tally.echoed++;
        if (!intact(echo) || crcOf(echo) != crcOf(f.message())) {
            tally.mismatches++;
            tally.errors.add("message " + f.index() + ": the echo's CRC32 does not match (" + echo.length + " bytes)");
        }
    }

    static byte[] message(SplittableRandom random, int size) {
        byte[] message = new byte[size];
        random.nextBytes(message);
        CRC32 crc = new CRC32();
        crc.update(message, 0, size - 4);
        ByteBuffer.wrap(message, size - 4, 4).putInt((int) crc.getValue());
        return message;
    }

    /** Whether the message's own bytes match the CRC32 it carries. */
    static boolean intact(byte[] message) {
        if (message.length < MIN_SIZE) {
            return false;
        }
        CRC32 crc = new CRC32();
        crc.update(message, 0, message.length - 4);
        return (int) crc.getValue() == crcOf(message);
    }

    private static int crcOf(byte[] message) {
        return ByteBuffer.wrap(message, message.length - 4, 4).getInt();
    }
}
