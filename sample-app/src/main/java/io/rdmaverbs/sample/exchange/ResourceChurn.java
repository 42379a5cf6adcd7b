package io.rdmaverbs.sample.exchange;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import io.rdmaverbs.verbs.CompletionQueue;
import io.rdmaverbs.verbs.CompletionQueueSpec;
import io.rdmaverbs.verbs.DeviceContext;
import io.rdmaverbs.verbs.MemoryRegion;
import io.rdmaverbs.verbs.ProtectionDomain;
import io.rdmaverbs.verbs.QueuePair;
import io.rdmaverbs.verbs.QueuePairSpec;
import io.rdmaverbs.verbs.ReceiveRequest;
import io.rdmaverbs.verbs.SendRequest;
import io.rdmaverbs.verbs.VerbsResource;
import io.rdmaverbs.verbs.attr.AccessFlag;
import io.rdmaverbs.verbs.attr.QpCapabilities;
import io.rdmaverbs.verbs.attr.WcOpcode;
import io.rdmaverbs.verbs.attr.WcStatus;
import io.rdmaverbs.verbs.attr.WorkCompletions;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.stereotype.Service;

/**
 * Resources created and closed at run time, beside the declared ones: a polled CQ, a memory region and
 * two connected RC QPs under the declared protection domain {@code pd}, one message between them, then
 * everything closed again, children before parents (QPs before their CQ and PD, as
 * {@code ibv_destroy_cq(3)} and {@code ibv_dealloc_pd(3)} require). Safe from several threads at once.
 */
@Service
public class ResourceChurn implements DisposableBean {

    private static final long POLL_NANOS = 2_000_000_000L;
    private static final int BUFFER = 8192;
    private static final int RECEIVE_OFFSET = BUFFER / 2;
    private static final Logger log = LoggerFactory.getLogger(ResourceChurn.class);

    private final DeviceContext context;
    private final ProtectionDomain pd;
    private final AtomicLong rounds = new AtomicLong();
    private final AtomicLong created = new AtomicLong();
    private final AtomicLong closed = new AtomicLong();

    public ResourceChurn(DeviceContext context, @Qualifier("pd") ProtectionDomain pd) {
        this.context = context;
        this.pd = pd;
    }

    /**
     * Creates the resources, sends {@code message} from one QP to the other, closes them. A verb that
     * fails or an error completion fails the call, after what was created is closed.
     */
    public ChurnResult churn(String message) {
        byte[] payload = message.getBytes(StandardCharsets.UTF_8);
        if (payload.length == 0 || payload.length > RECEIVE_OFFSET) {
            throw new IllegalArgumentException("a message is 1.." + RECEIVE_OFFSET + " bytes, got " + payload.length);
        }
        long round = rounds.incrementAndGet();
        Deque<VerbsResource> open = new ArrayDeque<>();
        List<String> names;
        WcStatus[] statuses;
        try {
            CompletionQueue cq = opened(open, context.createCompletionQueue(CompletionQueueSpec.of(8),
                    "churn-" + round + "-cq"));
            MemoryRegion mr = opened(open, pd.allocateMemory(BUFFER, Set.of(AccessFlag.LOCAL_WRITE),
                    "churn-" + round + "-mr"));
            QpCapabilities caps = QpCapabilities.of(1, 1);
            QueuePair a = opened(open, pd.createQueuePair(QueuePairSpec.rc(cq, cq, caps), "churn-" + round + "-a"));
            QueuePair b = opened(open, pd.createQueuePair(QueuePairSpec.rc(cq, cq, caps), "churn-" + round + "-b"));
            names = open.reversed().stream().map(VerbsResource::name).toList();
            PortAddress.connect(context, a, b);
            MemorySegment.copy(payload, 0, mr.segment(), ValueLayout.JAVA_BYTE, 0, payload.length);
            statuses = sendAndPoll(round, a, b, cq, mr, payload.length);
        } catch (RuntimeException e) {
            closeAll(open, e);
            throw e;
        }
        List<String> closedNames = closeAll(open, null);
        return new ChurnResult(names, closedNames, statuses[0].name(), statuses[1].name());
    }

    /** Returns the send and the receive status, both SUCCESS; anything else fails the round. */
    private WcStatus[] sendAndPoll(long round, QueuePair a, QueuePair b, CompletionQueue cq, MemoryRegion mr,
            int length) {
        try (SendRequest send = a.newSendRequest(1); ReceiveRequest receive = b.newReceiveRequest(1);
                WorkCompletions completions = cq.newWorkCompletions(4)) {
            b.postReceive(receive.clear().wrId(round).single(mr, RECEIVE_OFFSET, RECEIVE_OFFSET));
            a.postSend(send.clear().wrId(round).single(mr, 0, length));
            WcStatus sendStatus = null;
            WcStatus receiveStatus = null;
            long deadline = System.nanoTime() + POLL_NANOS;
            // An error completion ends the wait: after a failed send (RETRY_EXC_ERR) no receive comes.
            while ((sendStatus == null || receiveStatus == null) && !failed(sendStatus) && !failed(receiveStatus)
                    && System.nanoTime() < deadline) {
                int n = cq.poll(completions);
                for (int i = 0; i < n; i++) {
                    if (completions.opcode(i) == WcOpcode.RECV) {
                        receiveStatus = completions.status(i);
                    } else {
                        sendStatus = completions.status(i);
                    }
                }
                if (n == 0) {
                    Thread.onSpinWait();
                }
            }
            if (sendStatus != WcStatus.SUCCESS || receiveStatus != WcStatus.SUCCESS) {
                throw new CompletionFailedException("churn #" + round + " on qp '" + a.name() + "' -> qp '"
                        + b.name() + "' on " + context.device().name() + " failed: send "
                        + (sendStatus == null ? "not completed" : sendStatus) + ", receive "
                        + (receiveStatus == null ? "not completed" : receiveStatus));
            }
            return new WcStatus[] { sendStatus, receiveStatus };
        }
    }

    private static boolean failed(@Nullable WcStatus status) {
        return status != null && status != WcStatus.SUCCESS;
    }

    private <R extends VerbsResource> R opened(Deque<VerbsResource> open, R resource) {
        open.push(resource);
        created.incrementAndGet();
        return resource;
    }

    /**
     * Closes newest first and returns the names closed. A close that fails is added to the request's
     * {@code failure}, or, when there is none, thrown after the others were closed.
     */
    private List<String> closeAll(Deque<VerbsResource> open, @Nullable RuntimeException failure) {
        List<String> closedNames = new ArrayList<>();
        RuntimeException closeFailure = null;
        for (VerbsResource resource : open) {
            try {
                resource.close();
                closed.incrementAndGet();
                closedNames.add(resource.name());
            } catch (RuntimeException e) {
                if (failure != null) {
                    failure.addSuppressed(e);
                } else if (closeFailure == null) {
                    closeFailure = e;
                } else {
                    closeFailure.addSuppressed(e);
                }
            }
        }
        if (closeFailure != null) {
            throw closeFailure;
        }
        return closedNames;
    }

    /** How many resources were created and closed at run time; the summary a soak run reads at shutdown. */
    @Override
    public void destroy() {
        log.info("resource churn: {} rounds, {} resources created, {} closed", rounds.get(), created.get(),
                closed.get());
    }
}
