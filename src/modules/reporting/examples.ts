import type { OperationExamples } from '../../rpc/examples.js';

/** A request and its answer for each of the module's operations, shown in the API reference (checked against the schemas by test/examples.test.ts). */
export const examples: OperationExamples = {
  'reporting.generateReport': {
    "input": {
      "kind": "traceability_certificate",
      "parameters": {
        "roastedLotId": "rl_01m8gf3ebxey0w7m7z6jmnfeey",
        "publicBaseUrl": "https://roast.example.com"
      }
    },
    "output": {
      "id": "rpt_01m8gf3k3x91560n2n6b88ynwq",
      "kind": "traceability_certificate",
      "title": "Traceability certificate",
      "parameters": {
        "roastedLotId": "rl_01m8gf3ebxey0w7m7z6jmnfeey",
        "certificateId": "cert_01m8gf3jx01djt9a2tmaz2pt5d",
        "publicBaseUrl": "https://roast.example.com"
      },
      "status": "queued",
      "failureReason": null,
      "summary": null,
      "files": null,
      "createdAt": "2026-11-28T06:57:27.157Z",
      "startedAt": null,
      "completedAt": null,
      "updatedAt": "2026-11-28T06:57:27.157Z"
    }
  },
  'reporting.getDownloadUrl': {
    "input": {
      "id": "rpt_01m8gf2f46ka9jm5s0n1vhnbzv"
    },
    "output": {
      "reportId": "rpt_01m8gf2f46ka9jm5s0n1vhnbzv",
      "expiresAt": "2026-11-28T07:11:54.000Z",
      "signedBy": "service",
      "pdfUrl": "/files/v1/reports/rpt_01m8gf2f46ka9jm5s0n1vhnbzv.pdf?org=org_01m8gf25vqqe8gk5v02kb9hdmz&expires=1795849914&v=1&sig=M9apMeXdNUCyvxMqs38YC-LJ1A3d_DoBU23difPG9so",
      "csvUrl": "/files/v1/reports/rpt_01m8gf2f46ka9jm5s0n1vhnbzv.csv?org=org_01m8gf25vqqe8gk5v02kb9hdmz&expires=1795849914&v=1&sig=TYR6pbpVRTQpxQ_Jnv-uMW_Qe_I5xOusQ4HXc_WYeQI"
    }
  },
  'reporting.getReport': {
    "input": {
      "id": "rpt_01m8gf2f46ka9jm5s0n1vhnbzv"
    },
    "output": {
      "id": "rpt_01m8gf2f46ka9jm5s0n1vhnbzv",
      "kind": "inventory_valuation",
      "title": "Inventory valuation",
      "parameters": {
        "asOf": "2026-11-28T06:56:50.309Z",
        "before": "2026-11-28T06:56:50.309Z"
      },
      "status": "queued",
      "failureReason": null,
      "summary": null,
      "files": null,
      "createdAt": "2026-11-28T06:56:50.308Z",
      "startedAt": null,
      "completedAt": null,
      "updatedAt": "2026-11-28T06:56:50.308Z"
    }
  },
  'reporting.listReports': {
    "input": {
      "filter": {
        "kind": "cafe_performance",
        "status": "ready"
      },
      "page": {
        "limit": 5,
        "cursor": "WyJyZXBvcnRzIiwiMjAyNi0xMS0yOFQwNjo1ODowNy44NzFaIiwicnB0XzAxbThnZjR0dzVlazdncXoydzFzbjg5cnRxIl0.q3Xv0cN8h2LkT5pW9aZr4g"
      }
    },
    "output": {
      "items": [
        {
          "id": "rpt_01m8gf4mbqb3bpjdsgctf12abv",
          "kind": "cafe_performance",
          "title": "Q4 wholesale",
          "parameters": {
            "to": "2026-11-02",
            "from": "2026-11-01"
          },
          "status": "ready",
          "failureReason": null,
          "summary": {
            "shots": 0,
            "sites": 0,
            "variance": 0,
            "outsideTargetShots": 0,
            "saleShotEquivalents": 0
          },
          "files": {
            "pdfBytes": 3080,
            "csvBytes": 126
          },
          "createdAt": "2026-11-28T06:58:01.206Z",
          "startedAt": "2026-11-28T06:58:01.965Z",
          "completedAt": "2026-11-28T06:58:07.696Z",
          "updatedAt": "2026-11-28T06:58:07.696Z"
        }
      ],
      "nextCursor": null
    }
  },
};
