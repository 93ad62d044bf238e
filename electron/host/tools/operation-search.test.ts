import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { githubSpecPath } from "../../../scripts/fixtures.ts";
import type { Artifact, Operation } from "../../../shared/artifact.ts";
import { ingest } from "../specs/ingest.ts";
import { operation } from "../test-support/artifacts.ts";
import { buildOperationIndex, PLAIN_BM25 } from "./operation-search.ts";
import { terms } from "./search-words.ts";

const MOVIES: Operation[] = [
  operation({ id: "getSearchPerson", method: "get", path: "/search/person", summary: "Search People", description: "Search for people.", parameters: [{ name: "query", in: "query", required: true }] }),
  operation({ id: "getPersonMovieCredits", method: "get", path: "/person/{person_id}/movie_credits", summary: "Get Movie Credits", description: "Get the movie credits for a person." }),
  operation({ id: "getMovieById", method: "get", path: "/movie/{movie_id}", summary: "Get Details", description: "Get the primary information about a movie." }),
  operation({ id: "getTvById", method: "get", path: "/tv/{tv_id}", summary: "Get Details", description: "Get the primary TV show details by id." }),
  operation({ id: "addPet", method: "post", path: "/pets", summary: "Add a pet to the store" }),
  operation({ id: "deletePet", method: "delete", path: "/pets/{petId}", summary: "Deletes a pet" }),
  operation({ id: "findPetsByTags", method: "get", path: "/pets/findByTags", summary: "Finds pets by tags", deprecated: true }),
  operation({ id: "findPetsByLabels", method: "get", path: "/pets/findByLabels", summary: "Finds pets by labels" }),
];

const ids = (results: { op: Operation }[]) => results.map((r) => r.op.id);

describe("find's words", () => {
  it("splits ids on case and separators, keeps whole words, drops stop words, stems", () => {
    const words = { stem: true, stopWords: true };
    expect(terms("reposGetContent", words)).toEqual(["repo", "get", "content", "reposgetcont"]);
    expect(terms("give me the number of movies directed by Sofia", words)).toEqual(["number", "movi", "direct", "sofia"]);
    expect(terms("movie_credits people", words)).toEqual(["movi", "credit", "person"]);
    expect(terms("the Movies", { stem: false, stopWords: false })).toEqual(["the", "movies"]);
  });
});

describe("find's ranking", () => {
  const index = buildOperationIndex(MOVIES);

  it("answers a question in plain words, though no operation holds every word", () => {
    const found = ids(index.search("give me the number of movies directed by Sofia Coppola", 10));
    expect(found.length).toBeGreaterThan(0);
    expect(found.slice(0, 2)).toContain("getPersonMovieCredits");
  });

  it("matches the usual verbs for a call and the HTTP method's own verb", () => {
    expect(ids(index.search("remove a pet", 1))).toEqual(["deletePet"]);
    expect(ids(index.search("create a pet", 1))).toEqual(["addPet"]);
  });

  it("puts an operation asked for by id, path or method and path first", () => {
    expect(ids(index.search("getTvById", 1))).toEqual(["getTvById"]);
    expect(ids(index.search("GET /movie/{movie_id}", 1))).toEqual(["getMovieById"]);
  });

  it("ranks a deprecated operation below an equal one that is not", () => {
    expect(ids(index.search("find pets by", 2))).toEqual(["findPetsByLabels", "findPetsByTags"]);
  });

  it("returns nothing for nothing it knows, and at most the limit", () => {
    expect(index.search("the of a", 10)).toEqual([]);
    expect(index.search("zebra", 10)).toEqual([]);
    expect(index.search("get", 3)).toHaveLength(3);
  });

  it("differs from plain BM25, which knows no synonyms, stems or stop words", () => {
    const plain = buildOperationIndex(MOVIES, PLAIN_BM25);
    expect(ids(plain.search("remove", 8))).toEqual([]);
    expect(ids(index.search("remove", 8))).toEqual(["deletePet"]);
    expect(ids(plain.search("movies", 8))).toEqual([]);
    expect(ids(index.search("movies", 8))).toContain("getMovieById");
  });
});

describe("find on GitHub's REST API spec", () => {
  let artifact: Artifact;
  beforeAll(() => {
    const result = ingest(readFileSync(githubSpecPath(), "utf8"));
    if (!result.ok) throw new Error(result.error.message);
    artifact = result.artifact;
  }, 120_000);

  it("finds the operation a person means in its first five", () => {
    const index = buildOperationIndex(artifact.operations);
    const top5 = (text: string) => ids(index.search(text, 5));
    expect(top5("list pull requests for a repository")).toContain("pullsList");
    expect(top5("create an issue")).toContain("issuesCreate");
    expect(top5("delete a repository")[0]).toBe("reposDelete");
    expect(top5("add a collaborator to a repo")).toContain("reposAddCollaborator");
    expect(top5("fetch the latest release")).toContain("reposGetLatestRelease");
    expect(top5("edit an issue comment")).toContain("issuesUpdateComment");
    expect(top5("pulls/list")[0]).toBe("pullsList");
  });

  it("answers most of forty everyday questions in its first five, where plain BM25 answers far fewer", () => {
    const questions: [string, string][] = [
      ["list pull requests for a repository", "pullsList"], ["create an issue", "issuesCreate"], ["delete a repository", "reposDelete"],
      ["add a collaborator to a repo", "reposAddCollaborator"], ["get the README of a repository", "reposGetReadme"], ["star a repository", "activityStarRepoForAuthenticatedUser"],
      ["merge a pull request", "pullsMerge"], ["list my notifications", "activityListNotificationsForAuthenticatedUser"], ["update a repository webhook", "reposUpdateWebhook"],
      ["remove a label from an issue", "issuesRemoveLabel"], ["get the authenticated user", "usersGetAuthenticated"], ["get a user by username", "usersGetByUsername"],
      ["list commits", "reposListCommits"], ["download workflow run logs", "actionsDownloadWorkflowRunLogs"], ["make a new gist", "gistsCreate"],
      ["edit an issue comment", "issuesUpdateComment"], ["fetch the latest release", "reposGetLatestRelease"], ["list branches", "reposListBranches"],
      ["create a pull request", "pullsCreate"], ["search code", "searchCode"], ["list organization members", "orgsListMembers"],
      ["read a file from a repository", "reposGetContent"], ["create or update file contents", "reposCreateOrUpdateFileContents"],
      ["list workflow runs for a repository", "actionsListWorkflowRunsForRepo"], ["add labels to an issue", "issuesAddLabels"], ["create a release", "reposCreateRelease"],
      ["who starred a repository", "activityListStargazersForRepo"], ["fork a repository", "reposCreateFork"], ["list issues assigned to me", "issuesList"],
      ["close an issue", "issuesUpdate"], ["get a commit", "reposGetCommit"], ["list tags", "reposListTags"], ["compare two commits", "reposCompareCommits"],
      ["request reviewers for a pull request", "pullsRequestReviewers"], ["list teams in an organization", "teamsList"],
      ["create a repository for the authenticated user", "reposCreateForAuthenticatedUser"], ["get my rate limit", "rateLimitGet"],
      ["list repositories of a user", "reposListForUser"], ["create a check run", "checksCreate"], ["trigger a workflow", "actionsCreateWorkflowDispatch"],
    ];
    const answered = (index: ReturnType<typeof buildOperationIndex>) => questions.filter(([q, id]) => ids(index.search(q, 5)).includes(id)).length;
    const ranked = answered(buildOperationIndex(artifact.operations));
    const plain = answered(buildOperationIndex(artifact.operations, PLAIN_BM25));
    expect(ranked).toBeGreaterThanOrEqual(36);
    expect(plain).toBeLessThan(ranked - 8);
  });
});
