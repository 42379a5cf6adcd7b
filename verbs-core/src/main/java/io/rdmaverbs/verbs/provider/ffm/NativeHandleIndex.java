package io.rdmaverbs.verbs.provider.ffm;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The provider's live CQs, QPs and SRQs by native address: async events name their object by its
 * address ({@code ibv_get_async_event(3)}), and closing a context takes its objects with it
 * ({@code ibv_close_device(3)}), so both verb groups that need the whole set share this one index.
 */
record NativeHandleIndex(Map<Long, NativeCq> cqs, Map<Long, NativeQp> qps, Map<Long, NativeSrq> srqs) {

    NativeHandleIndex() {
        this(new ConcurrentHashMap<>(), new ConcurrentHashMap<>(), new ConcurrentHashMap<>());
    }

    /** Forgets every object of {@code context}, which went with it. */
    void forgetObjectsOf(NativeContext context) {
        cqs.values().removeIf(cq -> cq.context() == context);
        qps.values().removeIf(qp -> qp.context() == context);
        srqs.values().removeIf(srq -> srq.context() == context);
    }
}
