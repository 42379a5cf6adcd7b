package io.rdmaverbs.sample.exchange;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;

import io.rdmaverbs.verbs.CompletionChannel;
import io.rdmaverbs.verbs.CompletionQueue;
import io.rdmaverbs.verbs.DeviceContext;
import io.rdmaverbs.verbs.MemoryRegion;
import io.rdmaverbs.verbs.QueuePair;
import io.rdmaverbs.verbs.ReceiveRequest;
import io.rdmaverbs.verbs.SendRequest;
import io.rdmaverbs.verbs.attr.QpModification;
import io.rdmaverbs.verbs.attr.QpState;
import io.rdmaverbs.verbs.attr.WorkCompletions;
import io.rdmaverbs.verbs.attr.WcOpcode;
import io.rdmaverbs.verbs.attr.WcStatus;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.stereotype.Service;

/**
 * An RC send/receive between two connected queue pairs of the same device, with completions delivered
 * through the completion channel: post the receive, arm the CQ, post the send, wait for events,
 * acknowledge them, re-arm, poll. The resources are the beans declared in {@code application.yml}.
 * An error completion (a port that is down, a dead device) ends the exchange at once with a
 * {@link CompletionFailedException}, and the next exchange first resets and reconnects the pair.
 */
@Service
public class LoopbackExchange implements DisposableBean {

    /** Where each side's bytes live in the {@code buffers} region. */
    static final long SEND_OFFSET = 0;
    static final long RECEIVE_OFFSET = 4096;
    static final int MAX_MESSAGE = 4096;
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final Logger log = LoggerFactory.getLogger(LoopbackExchange.class);

    private final QueuePair requester;
    private final QueuePair responder;
    private final CompletionQueue cq;
    private final CompletionChannel events;
    private final MemoryRegion buffers;
    private final SendRequest send;
    private final ReceiveRequest receive;
    private final WorkCompletions completions;
    private final DeviceContext context;
    private long sequence;
    /** An exchange failed: the pair is in ERR (or holds a stale receive) until it is reset and reconnected. */
    private boolean broken;

    public LoopbackExchange(DeviceContext context, @Qualifier("requester") QueuePair requester,
            @Qualifier("responder") QueuePair responder, @Qualifier("cq") CompletionQueue cq,
            CompletionChannel events, MemoryRegion buffers) {
        this.requester = requester;
        this.responder = responder;
        this.cq = cq;
        this.events = events;
        this.buffers = buffers;
        this.context = context;
        var path = PortAddress.of(context);
        PortAddress.connect(context, requester, responder);
        this.send = requester.newSendRequest(1);
        this.receive = responder.newReceiveRequest(1);
        this.completions = cq.newWorkCompletions(4);
        log.info("RC loopback ready: QP {} <-> QP {} on {} through {}", requester.qpNum(), responder.qpNum(),
                context.device().name(), path.isGlobal() ? "GID " + path.globalRoute().destinationGid() : "LID");
    }

    /** Sends {@code message} from the requester to the responder and waits for both completions. */
    public synchronized ExchangeResult exchange(String message) {
        return exchange(message, true);
    }

    /**
     * The same exchange, but leaves the first completion event unacknowledged: the CQ then holds an
     * event {@code ibv_destroy_cq} would wait for forever, which health reports and the teardown
     * acknowledges (cascade) or reports (strict).
     */
    public synchronized ExchangeResult exchangeLeavingOneEventUnacknowledged(String message) {
        return exchange(message, false);
    }

    private ExchangeResult exchange(String message, boolean acknowledgeAll) {
        byte[] payload = message.getBytes(StandardCharsets.UTF_8);
        if (payload.length == 0 || payload.length > MAX_MESSAGE) {
            throw new IllegalArgumentException("a message is 1.." + MAX_MESSAGE + " bytes, got " + payload.length);
        }
        MemorySegment memory = buffers.segment();
        memory.asSlice(RECEIVE_OFFSET, MAX_MESSAGE).fill((byte) 0);
        MemorySegment.copy(payload, 0, memory, ValueLayout.JAVA_BYTE, SEND_OFFSET, payload.length);
        if (broken) {
            reconnect();
        }
        long id = ++sequence;
        long started = System.nanoTime();
        // Until both completions arrived, a failure leaves the pair unusable: reconnect before the next.
        broken = true;
        responder.postReceive(receive.clear().wrId(id).single(buffers, RECEIVE_OFFSET, MAX_MESSAGE));
        cq.requestNotification(false);
        requester.postSend(send.clear().wrId(id).single(buffers, SEND_OFFSET, payload.length));

        String sendStatus = null;
        String receiveStatus = null;
        int bytes = 0;
        int eventCount = 0;
        boolean acknowledged = true;
        while ((sendStatus == null || receiveStatus == null) && !failed(sendStatus) && !failed(receiveStatus)) {
            Optional<CompletionQueue> event = events.awaitEvent(WAIT);
            if (event.isEmpty()) {
                throw new IllegalStateException("no completion event within " + WAIT);
            }
            eventCount++;
            if (acknowledgeAll || eventCount > 1) {
                event.get().acknowledgeEvents(1);
            } else {
                acknowledged = false;
            }
            cq.requestNotification(false);
            int n;
            while ((n = cq.poll(completions)) > 0) {
                for (int i = 0; i < n; i++) {
                    WcStatus status = completions.status(i);
                    if (completions.opcode(i) == WcOpcode.RECV) {
                        receiveStatus = status.name();
                        bytes = completions.byteLength(i);
                    } else {
                        sendStatus = status.name();
                    }
                }
            }
        }
        if (failed(sendStatus) || failed(receiveStatus)) {
            // An RC error completion moves the QP to ERR (ibv_poll_cq(3)); the peer's receive may stay posted.
            throw new CompletionFailedException("RC exchange #" + id + " on qp '" + requester.name() + "' -> qp '"
                    + responder.name() + "' on " + context.device().name() + " failed: send "
                    + (sendStatus == null ? "not completed" : sendStatus) + ", receive "
                    + (receiveStatus == null ? "not completed" : receiveStatus)
                    + "; the pair is reset and reconnected before the next exchange");
        }
        broken = false;
        long micros = (System.nanoTime() - started) / 1000;
        String received = new String(memory.asSlice(RECEIVE_OFFSET, bytes).toArray(ValueLayout.JAVA_BYTE),
                StandardCharsets.UTF_8);
        ExchangeResult result = new ExchangeResult("RC", message, received, bytes, sendStatus, receiveStatus,
                eventCount, acknowledged, micros);
        log.info("RC exchange #{}: {} bytes, send {}, receive {}, {} event(s){}, {} us", id, bytes, sendStatus,
                receiveStatus, eventCount, acknowledged ? "" : " (one left unacknowledged)", micros);
        return result;
    }

    private static boolean failed(@Nullable String status) {
        return status != null && !status.equals(WcStatus.SUCCESS.name());
    }

    /** ERR (or RTS with a stale receive) to RESET, which drops every posted WR, then RTS again. */
    private void reconnect() {
        requester.modify(QpModification.to(QpState.RESET));
        responder.modify(QpModification.to(QpState.RESET));
        while (cq.poll(completions) > 0) {
            // Completions of the failed exchange (flushed or late) must not pass for the next one's.
        }
        PortAddress.connect(context, requester, responder);
        broken = false;
        log.info("RC loopback reconnected after a failed exchange: QP {} <-> QP {}", requester.qpNum(),
                responder.qpNum());
    }

    @Override
    public void destroy() {
        send.close();
        receive.close();
        completions.close();
    }
}
