package io.rdmaverbs.spring.boot.health;

import java.util.function.ToIntFunction;
import java.util.stream.Stream;

import io.rdmaverbs.verbs.DeviceContext;
import io.rdmaverbs.verbs.Verbs;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.HealthContributor;

/**
 * The {@code rdmaVerbs} health contributor: one {@link DeviceHealthIndicator} per open device context,
 * named by the context's name (its key under {@code rdma.verbs.devices}). Contexts the application
 * opens itself appear as they are opened.
 */
public final class VerbsHealthContributor implements CompositeHealthContributor {

    private final Verbs verbs;
    private final ToIntFunction<DeviceContext> port;
    private final DeviceHealthIndicator.DeviceState state;

    /**
     * @param port the port whose state is reported for a context
     */
    public VerbsHealthContributor(Verbs verbs, ToIntFunction<DeviceContext> port,
            DeviceHealthIndicator.DeviceState state) {
        this.verbs = verbs;
        this.port = port;
        this.state = state;
    }

    @Override
    public @Nullable HealthContributor getContributor(String name) {
        return verbs.contexts().stream().filter(c -> c.name().equals(name)).findFirst().map(this::indicator)
                .orElse(null);
    }

    @Override
    public Stream<Entry> stream() {
        return verbs.contexts().stream().map(c -> new Entry(c.name(), indicator(c)));
    }

    private HealthContributor indicator(DeviceContext context) {
        return new DeviceHealthIndicator(verbs, context, port.applyAsInt(context), state);
    }
}
