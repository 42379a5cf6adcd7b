package io.rdmaverbs.spring.boot.autoconfigure.docs;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import io.rdmaverbs.spring.boot.autoconfigure.Contexts;
import io.rdmaverbs.verbs.provider.ffm.NativeVerbsProvider;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.Environment;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.io.FileSystemResource;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.core.io.support.SpringFactoriesLoader.ArgumentResolver;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/troubleshooting.md quotes what users will really read: each startup failure's text is what
 * Spring Boot's failure analyzers make of the exception the sample's configuration, with the
 * arguments the page gives, fails with; each run-time message is what its example (a hidden
 * {@code <!-- example: ... -->} program, see {@link MarkdownExamples}) throws on the simulated provider.
 *
 * <p>A startup failure is marked {@code <!-- startup-failure: --a=b --c=d -->} before its block; a block
 * of several "description, action" pairs (no headings) is marked {@code <!-- startup-failures: args |
 * args ... -->}, one argument list per pair. The sample's own {@code LoopbackExchange} bean, which one
 * example collides with, is stood in for by a plain object of that name.
 */
class TroubleshootingExamplesTests {

    private static final Path PAGE = Path.of("..", "docs", "troubleshooting.md");
    private static final Path SAMPLE_CONFIG = Path.of("..", "sample-app", "src", "main", "resources");
    private static final Pattern STARTUP = Pattern.compile("^\\s*<!--\\s*startup-failures?:\\s*(.*?)\\s*-->\\s*$");

    @TempDir
    Path work;

    /** A marked startup failure: the argument lists and the quoted block, from page line {@code line}. */
    private record StartupFailure(int line, List<List<String>> arguments, MarkdownExamples.Block quote) {
    }

    @Test
    void everyStartupFailureThePageQuotesIsMarkedWithTheArgumentsThatCauseIt() throws IOException {
        List<String> lines = Files.readAllLines(PAGE, StandardCharsets.UTF_8);
        List<Integer> marked = startupFailures(lines).stream().map(f -> f.quote().line()).toList();
        List<Integer> quoted = new ArrayList<>();
        for (int i = 0; i + 1 < lines.size(); i++) {
            if (lines.get(i).strip().equals("```") && lines.get(i + 1).equals("Description:")) {
                quoted.add(i + 2);
            }
        }
        assertThat(quoted).as("page lines of the quoted 'Description:' blocks").hasSizeGreaterThan(8);
        assertThat(marked).as("page lines of the blocks marked <!-- startup-failure: ... -->").containsAll(quoted);
    }

    @TestFactory
    Stream<DynamicTest> eachStartupFailureReadsAsThePageQuotesIt() throws IOException {
        List<String> lines = Files.readAllLines(PAGE, StandardCharsets.UTF_8);
        return startupFailures(lines).stream().map(failure -> DynamicTest.dynamicTest(
                PAGE.getFileName() + ":" + failure.line() + " " + failure.arguments(), () -> {
                    List<String> printed = new ArrayList<>();
                    boolean headed = failure.quote().lines().getFirst().equals("Description:");
                    for (List<String> arguments : failure.arguments()) {
                        FailureAnalysis analysis = analyzeSampleStartup(arguments);
                        if (headed) {
                            printed.addAll(List.of("Description:", analysis.getDescription(), "Action:",
                                    analysis.getAction()));
                        }
                        else {
                            printed.addAll(List.of(analysis.getDescription(), analysis.getAction()));
                        }
                    }
                    assertThat(nonBlankLines(printed)).as("%s:%d", PAGE.getFileName(), failure.quote().line())
                            .isEqualTo(nonBlankLines(failure.quote().lines()));
                }));
    }

    @Test
    void everyRunTimeMessageThePageQuotesIsACheckedExample() throws IOException {
        List<MarkdownExamples.Program> programs = MarkdownExamples.of(PAGE).programs();
        assertThat(programs).extracting(MarkdownExamples.Program::name).contains("refused-close", "xrc-on-soft-roce",
                "unknown-device", "closed-resource");
        assertThat(programs).allSatisfy(p -> assertThat(p.units()).allSatisfy(u -> assertThat(u.output())
                .as("%s:%d quotes output", p.page(), u.line()).isNotNull()));
    }

    @TestFactory
    Stream<DynamicTest> eachRunTimeExampleThrowsWhatThePageQuotes() throws IOException {
        return MarkdownExamples.of(PAGE).programs().stream().map(program -> DynamicTest.dynamicTest(
                program.page() + ":" + program.line() + " (" + program.name() + ")", () -> {
                    Path dir = Files.createDirectories(work.resolve(program.name()));
                    assertThat(ExampleRun.check(program, dir)).as("problems of example '%s'", program.name()).isEmpty();
                }));
    }

    private static List<StartupFailure> startupFailures(List<String> lines) {
        List<StartupFailure> failures = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            Matcher marker = STARTUP.matcher(lines.get(i));
            if (!marker.matches()) {
                continue;
            }
            List<List<String>> arguments = Stream.of(marker.group(1).split("\\|"))
                    .map(list -> List.of(list.strip().split("\\s+")))
                    .toList();
            int open = i + 1;
            while (lines.get(open).isBlank()) {
                open++;
            }
            assertThat(lines.get(open).strip()).as("%s:%d: a fenced block follows the marker", PAGE.getFileName(), i + 1)
                    .isEqualTo("```");
            List<String> quote = new ArrayList<>();
            int j = open + 1;
            while (!lines.get(j).strip().equals("```")) {
                quote.add(lines.get(j++));
            }
            failures.add(new StartupFailure(i + 1, arguments, new MarkdownExamples.Block("", open + 2, quote)));
        }
        return failures;
    }

    /**
     * Starts the sample's configuration (application.yml and the active profile's file, the
     * simulated one unless the arguments say otherwise) with {@code arguments} on top, and returns
     * what the first failure analyzer that knows the startup failure makes of it, as Spring Boot does.
     */
    private static FailureAnalysis analyzeSampleStartup(List<String> arguments) throws IOException {
        List<String> properties = arguments.stream().map(a -> a.replaceFirst("^--", "")).toList();
        String profile = properties.stream().filter(p -> p.startsWith("spring.profiles.active="))
                .map(p -> p.substring("spring.profiles.active=".length())).findFirst().orElse("simulated");
        if (profile.equals("native")) {
            assumeNativeProviderHasNoDevice(properties);
        }
        List<PropertySource<?>> sample = new ArrayList<>();
        YamlPropertySourceLoader yaml = new YamlPropertySourceLoader();
        for (String file : List.of("application-" + profile + ".yml", "application.yml")) {
            sample.addAll(yaml.load(file, new FileSystemResource(SAMPLE_CONFIG.resolve(file))));
        }
        ApplicationContextRunner runner = Contexts.all()
                .withInitializer(context -> sample.forEach(context.getEnvironment().getPropertySources()::addLast))
                .withBean("loopbackExchange", Object.class, Object::new)
                .withPropertyValues(properties.toArray(String[]::new));
        FailureAnalysis[] analysis = new FailureAnalysis[1];
        runner.run(context -> {
            assertThat(context).as("the sample started with %s", arguments).hasFailed();
            ArgumentResolver resolver = ArgumentResolver.of(BeanFactory.class, new DefaultListableBeanFactory())
                    .and(Environment.class, new StandardEnvironment());
            for (FailureAnalyzer analyzer : SpringFactoriesLoader.forDefaultResourceLocation()
                    .load(FailureAnalyzer.class, resolver)) {
                analysis[0] = analyzer.analyze(context.getStartupFailure());
                if (analysis[0] != null) {
                    break;
                }
            }
        });
        assertThat(analysis[0]).as("a failure analysis of the startup with %s", arguments).isNotNull();
        return analysis[0];
    }

    /** The page's native examples were captured on a machine with libibverbs and no RDMA device; elsewhere they differ. */
    private static void assumeNativeProviderHasNoDevice(List<String> properties) {
        if (properties.stream().anyMatch(p -> p.startsWith("rdma.verbs.native.library-path="))) {
            properties.stream().filter(p -> p.startsWith("rdma.verbs.native.library-path=")).findFirst()
                    .map(p -> Path.of(p.substring(p.indexOf('=') + 1)))
                    .filter(path -> path.startsWith("/lib"))
                    .ifPresent(path -> Assumptions.assumeTrue(Files.exists(path), path + " exists on this machine"));
            return;
        }
        boolean noDevice;
        try {
            noDevice = NativeVerbsProvider.load().devices().isEmpty();
        }
        catch (RuntimeException unavailable) {
            noDevice = false;
        }
        Assumptions.assumeTrue(noDevice, "libibverbs loads on this machine and finds no RDMA device");
    }

    private static List<String> nonBlankLines(List<String> text) {
        return text.stream().flatMap(String::lines).map(String::strip).filter(line -> !line.isEmpty()).toList();
    }
}
