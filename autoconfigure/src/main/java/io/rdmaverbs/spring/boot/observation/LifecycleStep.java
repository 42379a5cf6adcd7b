package io.rdmaverbs.spring.boot.observation;

import java.util.Map;

/**
 * One lifecycle step of the resource graph, as an observation names and tags it. Its tags are low
 * cardinality by construction: a device name, a provider name, a teardown policy, never a resource id,
 * an address or a key a request chose.
 *
 * @param name the observation name, e.g. {@code rdma.verbs.device.open}
 * @param contextualName the span name
 * @param tags the low-cardinality tags known before the step runs
 */
public record LifecycleStep(String name, String contextualName, Map<String, String> tags) {

    /** The name of the observation of {@code ibv_open_device(3)} on a declared device, with its checks. */
    public static final String DEVICE_OPEN = "rdma.verbs.device.open";

    /** The name of the observation of the teardown, from its graceful phase to the policy's final close. */
    public static final String TEARDOWN = "rdma.verbs.teardown";

    /** The tag of the kernel device name, e.g. {@code rxe0}. */
    public static final String DEVICE_TAG = "rdma.device";

    /** The tag of the provider name: {@code native} or {@code simulated}. */
    public static final String PROVIDER_TAG = "rdma.provider";

    /** The tag of the teardown policy: {@code strict} or {@code cascade}. */
    public static final String POLICY_TAG = "rdma.teardown.policy";

    /** The tag of how the step ended, added when it ends; {@value #ERROR} when it threw. */
    public static final String OUTCOME_TAG = "outcome";

    /** The outcome of a step that threw. */
    public static final String ERROR = "error";

    public LifecycleStep {
        tags = Map.copyOf(tags);
    }

    /** Opening the declared device {@code device} (its kernel name) through {@code provider}. */
    public static LifecycleStep deviceOpen(String device, String provider) {
        return new LifecycleStep(DEVICE_OPEN, "rdma open " + device, Map.of(DEVICE_TAG, device, PROVIDER_TAG,
                provider));
    }

    /** The teardown under {@code policy} (its property value) of the graph on {@code provider}. */
    public static LifecycleStep teardown(String policy, String provider) {
        return new LifecycleStep(TEARDOWN, "rdma teardown", Map.of(POLICY_TAG, policy, PROVIDER_TAG, provider));
    }
}
