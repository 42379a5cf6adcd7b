package io.rdmaverbs.spring.boot.autoconfigure.endpoint;

import java.security.Principal;

import io.rdmaverbs.spring.boot.autoconfigure.Contexts;
import io.rdmaverbs.spring.boot.descriptor.LeaseDescriptor;
import io.rdmaverbs.spring.boot.endpoint.VerbsEndpoint;
import io.rdmaverbs.spring.boot.endpoint.VerbsEndpointWebExtension;
import io.rdmaverbs.verbs.Lease;
import io.rdmaverbs.verbs.MemoryRegion;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.endpoint.SanitizableData;
import org.springframework.boot.actuate.endpoint.SanitizingFunction;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Where a lease was taken is shown as {@code management.endpoint.verbs.show-values} allows, as
 * {@code /actuator/env} shows values.
 */
class LeaseOriginVisibilityTests {

    private final ApplicationContextRunner runner = Contexts.simulated()
            .withPropertyValues(Contexts.FULL)
            .withPropertyValues("management.endpoints.web.exposure.include=verbs");

    @Test
    void neverIsTheDefaultAndMasksThreadAndStack() {
        runner.run(context -> {
            try (Lease lease = context.getBean("buf", MemoryRegion.class).lease("replicator")) {
                LeaseDescriptor shown = lease(context.getBean(VerbsEndpoint.class).resource("buf"));
                assertThat(shown.holder()).isEqualTo("replicator");
                assertThat(shown.thread()).isEqualTo(SanitizableData.SANITIZED_VALUE);
                assertThat(shown.stack()).containsExactly(SanitizableData.SANITIZED_VALUE);
            }
        });
    }

    @Test
    void alwaysShowsThreadAndStack() {
        runner.withPropertyValues("management.endpoint.verbs.show-values=always").run(context -> {
            try (Lease lease = context.getBean("buf", MemoryRegion.class).lease("replicator")) {
                LeaseDescriptor shown = lease(context.getBean(VerbsEndpoint.class).resource("buf"));
                assertThat(shown.thread()).isEqualTo(Thread.currentThread().getName());
                assertThat(shown.stack().getFirst()).contains(LeaseOriginVisibilityTests.class.getName());
                assertThat(context.getBean(VerbsEndpoint.class).graph().stuckReferences())
                        .filteredOn(s -> s.lease() != null).singleElement()
                        .satisfies(s -> assertThat(s.lease().thread()).isEqualTo(Thread.currentThread().getName()));
            }
        });
    }

    @Test
    void whenAuthorizedShowsThemOverHttpOnlyToAUserInOneOfTheRoles() {
        runner.withPropertyValues("management.endpoint.verbs.show-values=when-authorized",
                "management.endpoint.verbs.roles=rdma-admin").run(context -> {
                    VerbsEndpointWebExtension web = context.getBean(VerbsEndpointWebExtension.class);
                    try (Lease lease = context.getBean("buf", MemoryRegion.class).lease("replicator")) {
                        assertThat(lease(web.resource(SecurityContext.NONE, "buf").getBody()).thread())
                                .as("anonymous").isEqualTo(SanitizableData.SANITIZED_VALUE);
                        assertThat(lease(web.resource(user("operator"), "buf").getBody()).thread())
                                .as("not in the role").isEqualTo(SanitizableData.SANITIZED_VALUE);
                        WebEndpointResponse<VerbsEndpoint.ResourceReport> admin = web.resource(user("rdma-admin"), "buf");
                        assertThat(lease(admin.getBody()).thread()).isEqualTo(Thread.currentThread().getName());
                    }
                });
    }

    @Test
    void sanitizingFunctionsApplyToShownValues() {
        runner.withPropertyValues("management.endpoint.verbs.show-values=always")
                .withBean(SanitizingFunction.class, () -> data -> data.getKey().equals("lease.stack")
                        ? data.withSanitizedValue() : data)
                .run(context -> {
                    try (Lease lease = context.getBean("buf", MemoryRegion.class).lease("replicator")) {
                        LeaseDescriptor shown = lease(context.getBean(VerbsEndpoint.class).resource("buf"));
                        assertThat(shown.thread()).isEqualTo(Thread.currentThread().getName());
                        assertThat(shown.stack()).containsExactly(SanitizableData.SANITIZED_VALUE);
                    }
                });
    }

    private static LeaseDescriptor lease(VerbsEndpoint.ResourceReport report) {
        assertThat(report).isNotNull();
        return report.resource().leases().getFirst();
    }

    private static SecurityContext user(String role) {
        Principal principal = () -> "someone";
        return new SecurityContext() {

            @Override
            public Principal getPrincipal() {
                return principal;
            }

            @Override
            public boolean isUserInRole(String r) {
                return r.equals(role);
            }
        };
    }
}
