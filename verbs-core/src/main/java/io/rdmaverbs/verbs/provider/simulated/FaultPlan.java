package io.rdmaverbs.verbs.provider.simulated;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import io.rdmaverbs.verbs.error.Errno;

import org.jspecify.annotations.Nullable;

/**
 * The failures a {@link SimulatedProvider} injects into its own verbs, for sweeps in the manner of
 * SQLite's fault tests: run a test once to count its provider calls, then once per call with that call
 * failing, and check that nothing leaked. {@link SimulatedProvider#faults()} returns the provider's one
 * plan.
 *
 * <p>An injected failure is the kernel refusing: the verb throws the {@code VerbsException} (verb,
 * errno) a real refusal throws, and nothing is allocated, freed or changed; an injected EBUSY on a
 * release leaves the object alive. It comes after the handle checks (a foreign or destroyed handle is
 * still {@code IllegalArgumentException} / {@code IllegalStateException}, as on the native provider,
 * where those are caught before the native call) and before any other check of the verb.
 *
 * <p>What is counted: every method of the provider SPI that is a libibverbs verb, under its
 * libibverbs name ({@code ibv_get_device_list}, {@code ibv_open_device}, {@code ibv_close_device},
 * {@code ibv_query_device}, {@code ibv_query_port}, {@code ibv_query_gid}, {@code ibv_alloc_pd},
 * {@code ibv_dealloc_pd}, {@code ibv_open_xrcd}, {@code ibv_close_xrcd}, {@code ibv_create_comp_channel},
 * {@code ibv_destroy_comp_channel}, {@code ibv_create_cq}, {@code ibv_destroy_cq},
 * {@code ibv_req_notify_cq}, {@code ibv_poll_cq}, {@code ibv_get_cq_event}, {@code ibv_create_srq}
 * (basic), {@code ibv_create_srq_ex} (XRC), {@code ibv_destroy_srq}, {@code ibv_post_srq_recv},
 * {@code ibv_create_qp_ex}, {@code ibv_open_qp}, {@code ibv_destroy_qp}, {@code ibv_modify_qp},
 * {@code ibv_query_qp}, {@code ibv_post_send}, {@code ibv_post_recv}, {@code ibv_attach_mcast},
 * {@code ibv_detach_mcast}, {@code ibv_reg_mr}, {@code ibv_dereg_mr}, {@code ibv_create_ah},
 * {@code ibv_destroy_ah}, {@code ibv_get_async_event}), and every librdmacm verb under its name
 * ({@code rdma_create_event_channel}, {@code rdma_create_id}, {@code rdma_bind_addr},
 * {@code rdma_resolve_addr}, {@code rdma_connect}, {@code rdma_get_cm_event}...; the {@code ibv_*} calls
 * librdmacm makes, such as {@code ibv_modify_qp} from {@code rdma_accept}, are counted too). Not counted, and never failed: what cannot fail
 * in libibverbs: {@code ibv_ack_cq_events} (it returns void), the wakes ({@code wakeCqEventWaiters},
 * {@code wakeAsyncEventWaiters}, an {@code eventfd(2)} write), the buffers ({@code newSendWr},
 * {@code newRecvWr}, {@code newWorkCompletions}, plain Java memory), and {@code openFile} /
 * {@code closeFile} ({@code open(2)}/{@code close(2)} of the file naming an XRC domain, not a verb).
 * The waits ({@code ibv_get_cq_event}, {@code ibv_get_async_event}) are counted per wait slice, so a
 * test with threads waiting for events has counts that depend on timing.
 *
 * <p>Positions ({@code nth}, {@link #calls()}) count from the plan's creation or its last
 * {@link #reset()}; {@link #clear()} drops the planned faults and keeps the counts. When several planned
 * faults match one call, the first planned wins. Thread-safe: counting is lock-free, and each call gets a
 * unique position even when calls race.
 */
public final class FaultPlan {

    private final AtomicLong calls = new AtomicLong();
    private final Map<String, AtomicLong> callsByVerb = new ConcurrentHashMap<>();
    private final List<Rule> rules = new CopyOnWriteArrayList<>();
    private final List<InjectedFault> injected = new CopyOnWriteArrayList<>();

    FaultPlan() {
    }

    /** The {@code nth} call (1-based) of {@code verb} fails with {@code errno}, once. */
    public FaultPlan failCall(String verb, int nth, Errno errno) {
        return plan(new Rule(requireVerb(verb), requirePosition(nth), constant(errno), false, false));
    }

    /** The {@code nth} call (1-based) of {@code verb} and every later one fail with {@code errno}. */
    public FaultPlan failCallsFrom(String verb, int nth, Errno errno) {
        return plan(new Rule(requireVerb(verb), requirePosition(nth), constant(errno), true, false));
    }

    /** The {@code nth} provider call (1-based) of any verb fails with {@code errno}, once. */
    public FaultPlan failAnyCall(int nth, Errno errno) {
        Objects.requireNonNull(errno, "errno");
        return failAnyCall(nth, verb -> errno);
    }

    /**
     * The {@code nth} provider call (1-based) of any verb fails, once, with the errno {@code errnoOfVerb}
     * gives for the verb that call turns out to be; {@link #typicalErrno} is the usual choice for a sweep.
     */
    public FaultPlan failAnyCall(int nth, Function<String, Errno> errnoOfVerb) {
        return plan(new Rule(null, requirePosition(nth), Objects.requireNonNull(errnoOfVerb, "errnoOfVerb"), false,
                false));
    }

    /**
     * The errno the kernel or libibverbs typically refuses {@code verb} with, for sweeps that fail every
     * call in turn: ENOMEM for what allocates (creates, allocs, registrations, opens, attaches, and the
     * posts, which answer ENOMEM on a full queue), EBUSY for the releases (a destroy refused while in
     * use), EINVAL for {@code ibv_modify_qp}, EIO for the rest (queries, polls, arming, event waits).
     */
    public static Errno typicalErrno(String verb) {
        String v = verb.startsWith("ibv_") ? verb.substring(4) : verb.startsWith("rdma_") ? verb.substring(5) : verb;
        if (v.startsWith("destroy") || v.startsWith("dealloc") || v.startsWith("dereg") || v.startsWith("close")
                || v.startsWith("detach")) {
            return Errno.EBUSY;
        }
        if (v.startsWith("create") || v.startsWith("alloc") || v.startsWith("reg") || v.startsWith("open")
                || v.startsWith("attach") || v.startsWith("post") || v.equals("get_device_list")) {
            return Errno.ENOMEM;
        }
        return v.equals("modify_qp") ? Errno.EINVAL : Errno.EIO;
    }

    /**
     * At the {@code nth} call (1-based) of {@code verb} the device goes fatal, as
     * {@link SimulatedProvider#injectDeviceFatal} makes it (async event, QPs flushed, later verbs EIO), and
     * that call fails with EIO. {@code ibv_get_device_list} has no device: there only the call fails.
     */
    public FaultPlan deviceFatalAt(String verb, int nth) {
        return plan(new Rule(requireVerb(verb), requirePosition(nth), constant(Errno.EIO), false, true));
    }

    /** No faults planned any more; the counts are kept. */
    public void clear() {
        rules.clear();
    }

    /** {@link #clear()}, and the counts and the {@link #injected()} record start again from zero. */
    public void reset() {
        rules.clear();
        calls.set(0);
        callsByVerb.clear();
        injected.clear();
    }

    /** Provider calls counted since the plan was created or reset. */
    public long calls() {
        return calls.get();
    }

    /** {@link #calls()} per verb, by libibverbs name, in name order. */
    public Map<String, Long> callsByVerb() {
        Map<String, Long> copy = new TreeMap<>();
        callsByVerb.forEach((verb, n) -> copy.put(verb, n.get()));
        return copy;
    }

    /** The failures injected since the plan was created or reset, in the order they happened. */
    public List<InjectedFault> injected() {
        return List.copyOf(injected);
    }

    /**
     * Counts a call of {@code verb} and answers whether it must fail; the caller throws (and, for a
     * device-fatal fault, kills the device first).
     */
    @Nullable InjectedFault onCall(String verb) {
        long call = calls.incrementAndGet();
        long ofVerb = callsByVerb.computeIfAbsent(verb, v -> new AtomicLong()).incrementAndGet();
        if (rules.isEmpty()) {
            return null;
        }
        for (Rule rule : rules) {
            if (rule.matches(verb, call, ofVerb)) {
                InjectedFault fault = new InjectedFault(verb, call, rule.errno.apply(verb), rule.deviceFatal);
                injected.add(fault);
                return fault;
            }
        }
        return null;
    }

    private FaultPlan plan(Rule rule) {
        rules.add(rule);
        return this;
    }

    private static Function<String, Errno> constant(Errno errno) {
        Objects.requireNonNull(errno, "errno");
        return verb -> errno;
    }

    private static String requireVerb(String verb) {
        Objects.requireNonNull(verb, "verb");
        if (!verb.startsWith("ibv_") && !verb.startsWith("rdma_")) {
            throw new IllegalArgumentException("verb must be a libibverbs or librdmacm name such as ibv_create_cq"
                    + " or rdma_connect, was '"
                    + verb + "'");
        }
        return verb;
    }

    private static int requirePosition(int nth) {
        if (nth < 1) {
            throw new IllegalArgumentException("nth counts calls from 1, was " + nth);
        }
        return nth;
    }

    /** One planned fault; {@code verb == null} positions over all verbs. */
    private record Rule(@Nullable String verb, long nth, Function<String, Errno> errno, boolean andLater,
            boolean deviceFatal) {

        boolean matches(String calledVerb, long call, long ofVerb) {
            if (verb == null) {
                return call == nth;
            }
            return verb.equals(calledVerb) && (andLater ? ofVerb >= nth : ofVerb == nth);
        }
    }

    /** The planned faults, for diagnostics. */
    @Override
    public String toString() {
        List<String> planned = new ArrayList<>();
        for (Rule r : rules) {
            planned.add((r.deviceFatal ? "device fatal at " : "fail ") + (r.verb == null ? "any call" : r.verb)
                    + " #" + r.nth + (r.andLater ? " and later" : ""));
        }
        return "FaultPlan[calls=" + calls.get() + ", planned=" + planned + "]";
    }
}
