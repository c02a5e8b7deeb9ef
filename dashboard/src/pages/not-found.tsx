import { Link } from '../components/link';

export function NotFoundPage() {
  return (
    <>
      <h1>Page not found</h1>
      <p>
        Nothing lives at this address. <Link to="/">Go to the home page</Link>.
      </p>
    </>
  );
}
