package io.rdmaverbs.verbs.provider.simulated;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.rdmaverbs.verbs.attr.QpType;
import io.rdmaverbs.verbs.attr.SendFlag;
import io.rdmaverbs.verbs.attr.SendOpcode;
import io.rdmaverbs.verbs.attr.WcStatus;
import io.rdmaverbs.verbs.provider.ContextHandle;
import io.rdmaverbs.verbs.provider.CqHandle;
import io.rdmaverbs.verbs.provider.MrHandle;
import io.rdmaverbs.verbs.provider.PdHandle;
import io.rdmaverbs.verbs.provider.QpHandle;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Verbs on different objects from different threads, across two devices, neither deadlock nor mix data up. */
@Timeout(60)
class ConcurrencyTest {

    private static final int THREADS = 4;
    private static final int MESSAGES = 300;

    @Test
    void parallelConnectionsAcrossDevicesDeliverEveryMessageIntact() throws Exception {
        try (VerbsRig rig = new VerbsRig(DeviceProfile.rxe("rxe0"), DeviceProfile.rxe("rxe1"))) {
            SimulatedProvider provider = rig.provider;
            ExecutorService pool = Executors.newFixedThreadPool(THREADS + 1);
            List<Future<Integer>> results = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                int id = t;
                // Alternate directions so that threads take the device locks from both ends.
                String from = t % 2 == 0 ? "rxe0" : "rxe1";
                String to = t % 2 == 0 ? "rxe1" : "rxe0";
                results.add(pool.submit(() -> exchange(rig, from, to, id)));
            }
            Future<?> churn = pool.submit(() -> {
                ContextHandle ctx = rig.open("rxe1");
                for (int i = 0; i < MESSAGES; i++) {
                    PdHandle pd = provider.domainVerbs().allocPd(ctx);
                    CqHandle cq = provider.completionVerbs().createCq(ctx, 4, null, 0);
                    provider.completionVerbs().destroyCq(cq);
                    provider.domainVerbs().deallocPd(pd);
                }
                return null;
            });
            for (Future<Integer> r : results) {
                assertThat(r.get(50, TimeUnit.SECONDS)).isEqualTo(MESSAGES);
            }
            churn.get(50, TimeUnit.SECONDS);
            pool.shutdown();
        }
    }

    private static int exchange(VerbsRig rig, String from, String to, int id) {
        SimulatedProvider provider = rig.provider;
        ContextHandle ca = rig.open(from);
        ContextHandle cb = rig.open(to);
        PdHandle pa = provider.domainVerbs().allocPd(ca);
        PdHandle pb = provider.domainVerbs().allocPd(cb);
        CqHandle qa = provider.completionVerbs().createCq(ca, 64, null, 0);
        CqHandle qb = provider.completionVerbs().createCq(cb, 64, null, 0);
        QpHandle a = rig.qp(ca, pa, qa, QpType.RC);
        QpHandle b = rig.qp(cb, pb, qb, QpType.RC);
        rig.connect(a, ca, b, cb);
        MemorySegment out = rig.buffer(8);
        MemorySegment in = rig.buffer(8);
        MrHandle ma = rig.register(pa, out);
        MrHandle mb = rig.register(pb, in);
        int delivered = 0;
        var completions = provider.completionVerbs().newWorkCompletions(4);
        for (int i = 0; i < MESSAGES; i++) {
            long value = ((long) id << 32) | i;
            out.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, value);
            rig.receive(b, i, in, 8, mb);
            rig.post(a, SendOpcode.SEND, i, out, 8, ma, SendFlag.SIGNALED);
            List<VerbsRig.Wc> received = rig.poll(qb, completions);
            List<VerbsRig.Wc> sent = rig.poll(qa, completions);
            if (received.size() == 1 && received.getFirst().status() == WcStatus.SUCCESS && sent.size() == 1
                    && in.get(ValueLayout.JAVA_LONG_UNALIGNED, 0) == value) {
                delivered++;
            }
        }
        return delivered;
    }
}
