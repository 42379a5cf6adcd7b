package io.rdmaverbs.sample.exchange;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

import io.rdmaverbs.verbs.CompletionQueue;
import io.rdmaverbs.verbs.DeviceContext;
import io.rdmaverbs.verbs.MemoryRegion;
import io.rdmaverbs.verbs.QueuePair;
import io.rdmaverbs.verbs.ReceiveRequest;
import io.rdmaverbs.verbs.SendRequest;
import io.rdmaverbs.verbs.SharedReceiveQueue;
import io.rdmaverbs.verbs.attr.WorkCompletions;
import io.rdmaverbs.verbs.attr.WcOpcode;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.stereotype.Service;

/**
 * XRC traffic where the device has XRC (the default simulated mlx5 device does; soft-RoCE does not, and
 * the {@code native} profile declares no XRC resources): an XRC send QP addresses the XRC SRQ by number
 * through the XRC receive QP of the domain, and both completions arrive on the SRQ's CQ.
 */
@Service
public class XrcExchange implements DisposableBean {

    static final long SEND_OFFSET = 8192;
    static final long RECEIVE_OFFSET = 12288;
    private static final long POLL_NANOS = 10_000_000_000L;
    private static final Logger log = LoggerFactory.getLogger(XrcExchange.class);

    private final Optional<Xrc> xrc;
    private long sequence;

    /** The XRC resources, all present or none. */
    private record Xrc(QueuePair initiator, SharedReceiveQueue srq, CompletionQueue cq, MemoryRegion buffers,
            SendRequest send, ReceiveRequest receive, WorkCompletions completions) {
    }

    public XrcExchange(DeviceContext context, @Qualifier("xrc-initiator") ObjectProvider<QueuePair> initiator,
            @Qualifier("xrc-target") ObjectProvider<QueuePair> target,
            @Qualifier("xrc-srq") ObjectProvider<SharedReceiveQueue> srq,
            @Qualifier("xrc-cq") ObjectProvider<CompletionQueue> cq, MemoryRegion buffers) {
        QueuePair ini = initiator.getIfAvailable();
        QueuePair tgt = target.getIfAvailable();
        SharedReceiveQueue s = srq.getIfAvailable();
        CompletionQueue c = cq.getIfAvailable();
        if (!context.supportsXrc() || ini == null || tgt == null || s == null || c == null) {
            log.info("XRC traffic disabled: device {} {}", context.device().name(),
                    context.supportsXrc() ? "has XRC but no XRC resources are declared" : "has no XRC support");
            this.xrc = Optional.empty();
            return;
        }
        var path = PortAddress.of(context);
        var mtu = PortAddress.pathMtu(context);
        tgt.toInit(PortAddress.PORT, QueuePair.remoteReadWrite());
        ini.toInit(PortAddress.PORT, QueuePair.remoteReadWrite());
        tgt.toReadyToReceive(path, ini.qpNum(), 0, mtu);
        ini.toReadyToReceive(path, tgt.qpNum(), 0, mtu);
        ini.toReadyToSend(0);
        this.xrc = Optional.of(new Xrc(ini, s, c, buffers, ini.newSendRequest(1), s.newReceiveRequest(1),
                c.newWorkCompletions(4)));
        log.info("XRC ready: send QP {} -> receive QP {} -> SRQ {} on {}", ini.qpNum(), tgt.qpNum(), s.srqNum(),
                context.device().name());
    }

    public boolean isAvailable() {
        return xrc.isPresent();
    }

    /** Sends {@code message} through XRC into the SRQ and polls both completions. */
    public synchronized ExchangeResult exchange(String message) {
        Xrc x = xrc.orElseThrow(() -> new IllegalStateException("this device has no XRC: use the RC exchange"));
        byte[] payload = message.getBytes(StandardCharsets.UTF_8);
        if (payload.length == 0 || payload.length > LoopbackExchange.MAX_MESSAGE) {
            throw new IllegalArgumentException("a message is 1.." + LoopbackExchange.MAX_MESSAGE + " bytes, got "
                    + payload.length);
        }
        MemorySegment memory = x.buffers().segment();
        memory.asSlice(RECEIVE_OFFSET, LoopbackExchange.MAX_MESSAGE).fill((byte) 0);
        MemorySegment.copy(payload, 0, memory, ValueLayout.JAVA_BYTE, SEND_OFFSET, payload.length);
        long id = ++sequence;
        long started = System.nanoTime();
        x.srq().postReceive(x.receive().clear().wrId(id).single(x.buffers(), RECEIVE_OFFSET, LoopbackExchange.MAX_MESSAGE));
        x.initiator().postSend(x.send().clear().wrId(id).single(x.buffers(), SEND_OFFSET, payload.length)
                .xrcRemoteSrqNum(x.srq().srqNum()));
        String sendStatus = null;
        String receiveStatus = null;
        int bytes = 0;
        long deadline = started + POLL_NANOS;
        while ((sendStatus == null || receiveStatus == null) && System.nanoTime() < deadline) {
            int n = x.cq().poll(x.completions());
            for (int i = 0; i < n; i++) {
                if (x.completions().opcode(i) == WcOpcode.RECV) {
                    receiveStatus = x.completions().status(i).name();
                    bytes = x.completions().byteLength(i);
                } else {
                    sendStatus = x.completions().status(i).name();
                }
            }
            if (n == 0) {
                Thread.onSpinWait();
            }
        }
        if (sendStatus == null || receiveStatus == null) {
            throw new IllegalStateException("XRC completions did not arrive within 10 s");
        }
        long micros = (System.nanoTime() - started) / 1000;
        String received = new String(memory.asSlice(RECEIVE_OFFSET, bytes).toArray(ValueLayout.JAVA_BYTE),
                StandardCharsets.UTF_8);
        log.info("XRC exchange #{}: {} bytes into SRQ {}, send {}, receive {}, {} us", id, bytes, x.srq().srqNum(),
                sendStatus, receiveStatus, micros);
        return new ExchangeResult("XRC", message, received, bytes, sendStatus, receiveStatus, 0, true, micros);
    }

    @Override
    public void destroy() {
        xrc.ifPresent(x -> {
            x.send().close();
            x.receive().close();
            x.completions().close();
        });
    }
}
