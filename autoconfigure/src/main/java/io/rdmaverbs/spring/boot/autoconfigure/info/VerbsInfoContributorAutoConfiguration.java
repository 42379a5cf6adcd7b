package io.rdmaverbs.spring.boot.autoconfigure.info;

import io.rdmaverbs.spring.boot.autoconfigure.VerbsAutoConfiguration;
import io.rdmaverbs.spring.boot.info.VerbsInfoContributor;
import io.rdmaverbs.verbs.Verbs;

import org.springframework.boot.actuate.autoconfigure.info.ConditionalOnEnabledInfoContributor;
import org.springframework.boot.actuate.info.InfoContributor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The {@code rdmaVerbs} info contributor, when spring-boot-actuator is present. Switched off by
 * {@code management.info.rdmaverbs.enabled=false}.
 */
@AutoConfiguration(after = VerbsAutoConfiguration.class)
@ConditionalOnClass(InfoContributor.class)
@ConditionalOnBean(Verbs.class)
@ConditionalOnEnabledInfoContributor("rdmaverbs")
public final class VerbsInfoContributorAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    VerbsInfoContributor rdmaVerbsInfoContributor(Verbs verbs) {
        return new VerbsInfoContributor(verbs);
    }
}
