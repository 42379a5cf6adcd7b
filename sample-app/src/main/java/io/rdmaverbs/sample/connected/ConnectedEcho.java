package io.rdmaverbs.sample.connected;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.zip.CRC32;

import io.rdmaverbs.spring.boot.connections.RdmaPeer;
import io.rdmaverbs.spring.boot.connections.RdmaPeerUnavailableException;
import io.rdmaverbs.spring.boot.messaging.RdmaReplyTimeoutException;
import io.rdmaverbs.spring.boot.messaging.RdmaTemplate;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.stereotype.Service;

/**
 * Sends requests through the {@link RdmaTemplate} to the route {@code echo} of a peer's listener
 * ({@link EchoEndpoint} on the other side) and checks each echo: a message is {@code size - 4} pseudo-random
 * bytes followed by their CRC32 (big-endian); an echo must have the same length, a CRC32 that matches its
 * own bytes, and the CRC32 of the message sent. A message larger than the connection's buffer-size goes by
 * rendezvous (the listener reads it with RDMA READ), up to its max-message-size.
 */
@Service
public class ConnectedEcho {

    /** Room for the CRC32 and at least one byte. */
    static final int MIN_SIZE = 5;
    private static final Duration REPLY_WAIT = Duration.ofSeconds(5);

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
        int sent = 0;
        int echoed = 0;
        int mismatches = 0;
        List<String> errors = new ArrayList<>();
        SplittableRandom random = new SplittableRandom(size * 31L + count);
        for (int i = 0; i < count; i++) {
            byte[] message = message(random, size);
            byte[] echo;
            try {
                echo = template.convertSendAndReceive(name, "echo", message, byte[].class, REPLY_WAIT);
                sent++;
            } catch (RdmaPeerUnavailableException e) {
                if (sent == 0 && errors.isEmpty()) {
                    throw e;
                }
                sent++;
                errors.add("message " + i + ": " + e.getMessage());
                break;
            } catch (RdmaReplyTimeoutException e) {
                sent++;
                errors.add("message " + i + ": " + e.getMessage());
                continue;
            }
            echoed++;
            if (!intact(echo) || crcOf(echo) != crcOf(message)) {
                mismatches++;
                errors.add("message " + i + ": the echo's CRC32 does not match (" + echo.length + " bytes)");
            }
        }
        return new EchoRun(name, sent, echoed, mismatches, errors);
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
